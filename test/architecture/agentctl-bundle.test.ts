import { join, resolve } from 'node:path';
import type { Metafile } from 'esbuild';

const root = resolve(__dirname, '..', '..');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildAgentctl } = require(join(root, 'scripts', 'build-agentctl.js')) as {
  buildAgentctl(outfile: string, options: { write: false }): { metafile: Metafile };
};

/** The tracing adapter that starts the OpenTelemetry SDK: the one module the file may load only when asked. */
const OTLP_TRACING = 'src/adapters/otel/otlp-tracing.ts';

/** What an agentctl must never carry (docs/architecture.md, "The composition root"). */
const FORBIDDEN = [
  /^src\/composition\/(backend-|serve|demo)/,
  /^src\/adapters\/(sqlite|postgres|grpc|http|metrics|process)\//,
  /node_modules\/(pg|better-sqlite3|@grpc\/grpc-js|prom-client)\//,
];

/** Every module of the bundle reachable from its entry without going through `cut`. */
function reachable(metafile: Metafile, entry: string, cut: string): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const path = queue.pop()!;
    for (const imported of metafile.inputs[path]?.imports ?? []) {
      if (imported.external || imported.path === cut || seen.has(imported.path)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return seen;
}

const openTelemetrySdk = (path: string) => /node_modules\/@opentelemetry\/(?!api\/)/.test(path);

/** docs/agentctl.md §9: the standalone file holds the agentctl and nothing of the backend. */
describe('the standalone agentctl file (dist/agentctl.js)', () => {
  let metafile: Metafile;
  beforeAll(() => {
    metafile = buildAgentctl(join(root, 'dist', 'agentctl.js'), { write: false }).metafile;
  }, 60_000);

  it('holds nothing of the backend, its stores, gRPC or metrics', () => {
    const carried = Object.keys(metafile.inputs).filter((path) => FORBIDDEN.some((pattern) => pattern.test(path)));
    expect(carried).toEqual([]);
  });

  it('reaches the OpenTelemetry SDK only through the tracing adapter, which it loads only by import()', () => {
    const entry = 'src/composition/agentctl-entry.ts';
    expect(metafile.inputs[entry]).toBeDefined();
    expect([...reachable(metafile, entry, OTLP_TRACING)].filter(openTelemetrySdk)).toEqual([]);
    const importsOfTracing = Object.values(metafile.inputs).flatMap((input) => input.imports.filter((imported) => imported.path === OTLP_TRACING));
    expect(importsOfTracing.length).toBeGreaterThan(0);
    expect(importsOfTracing.map((imported) => imported.kind)).toEqual(importsOfTracing.map(() => 'dynamic-import'));
  });

  it("carries its own Headers, Request and Response, so Node's (undici, loaded whole on first use) never load", () => {
    expect(metafile.inputs['src/adapters/mcp/light-web-classes.ts']).toBeDefined();
  });

  it("carries no second ajv: the MCP SDK's Node shims are the file's own, checking with the ajv it has", () => {
    expect(metafile.inputs['src/adapters/mcp/sdk-node-shims.ts']).toBeDefined();
    expect(Object.keys(metafile.inputs).filter((path) => /@modelcontextprotocol\/server\/dist\/(shimsNode|ajvProvider)/.test(path))).toEqual([]);
  });

  it('takes the ES module build of a package that has one, so that what nobody imports is left out', () => {
    const otel = Object.keys(metafile.inputs).filter((path) => path.startsWith('node_modules/@opentelemetry/core/'));
    expect(otel.length).toBeGreaterThan(0);
    expect(otel.filter((path) => !path.includes('/build/esm/'))).toEqual([]);
  });

  it('the reachability check sees a static import of the SDK (planted)', () => {
    const planted: Metafile = {
      inputs: {
        'entry.ts': {
          bytes: 1,
          imports: [{ path: 'node_modules/@opentelemetry/sdk-trace/index.js', kind: 'import-statement', original: '@opentelemetry/sdk-trace' }],
        },
        'node_modules/@opentelemetry/sdk-trace/index.js': { bytes: 1, imports: [] },
      },
      outputs: {},
    };
    expect([...reachable(planted, 'entry.ts', OTLP_TRACING)].filter(openTelemetrySdk)).toEqual(['node_modules/@opentelemetry/sdk-trace/index.js']);
  });
});
