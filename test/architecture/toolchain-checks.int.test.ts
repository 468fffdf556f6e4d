import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** A throwaway copy of the project (src + configs) with node_modules linked, for planting faults. */
function copyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolport-arch-'));
  for (const entry of ['src', 'proto', 'scripts', '.dependency-cruiser.cjs', 'tsconfig.json', 'package.json', 'buf.yaml', 'buf.gen.yaml']) {
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function layerCheck(dir: string) {
  return spawnSync(join(dir, 'node_modules', '.bin', 'depcruise'), ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
    cwd: dir,
    encoding: 'utf8',
  });
}

describe('layer check', () => {
  let dir: string;
  beforeAll(() => {
    dir = copyProject();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on the project as it is', () => {
    const result = layerCheck(dir);
    expect(result.stdout + result.stderr).toContain('no dependency violations');
    expect(result.status).toBe(0);
  });

  it('fails when the domain imports an adapter', () => {
    appendFileSync(join(dir, 'src/domain/naming.ts'), "\nimport { PinoLogger } from '../adapters/pino/pino-logger';\nexport const planted = PinoLogger;\n");
    const result = layerCheck(dir);
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('domain-is-pure');
  });

  it('fails when a domain file other than tokens.ts takes something from node:crypto', () => {
    const planted = join(dir, 'src/domain/planted-crypto.ts');
    writeFileSync(planted, "import { randomBytes } from 'node:crypto';\nexport const salt = randomBytes(16);\n");
    try {
      const result = layerCheck(dir);
      expect(result.status).not.toBe(0);
      expect(result.stdout + result.stderr).toContain('domain-hashes-in-one-file: src/domain/planted-crypto.ts');
    } finally {
      rmSync(planted, { force: true });
    }
  });

  it('fails when the domain or the application imports a transport package (ws, express, gRPC, MCP)', () => {
    const planted: Array<[string, string]> = [
      ['src/domain/planted-ws.ts', 'ws'],
      ['src/application/planted-express.ts', 'express'],
      ['src/application/planted-grpc.ts', '@grpc/grpc-js'],
      ['src/domain/planted-mcp.ts', '@modelcontextprotocol/sdk/server/index.js'],
    ];
    for (const [file, pkg] of planted) writeFileSync(join(dir, file), `import * as planted from '${pkg}';\nexport const used = planted;\n`);
    try {
      const result = layerCheck(dir);
      expect(result.status).not.toBe(0);
      for (const [file] of planted) expect(result.stdout + result.stderr).toContain(`transports-stay-in-adapters: ${file}`);
    } finally {
      for (const [file] of planted) rmSync(join(dir, file), { force: true });
    }
  });

  it('fails when an adapter imports another adapter folder or inversify', () => {
    writeFileSync(
      join(dir, 'src/adapters/cli/planted.ts'),
      "import { PinoLogger } from '../pino/pino-logger';\nimport { Container } from 'inversify';\nexport const planted = [PinoLogger, Container];\n",
    );
    const output = (() => {
      const result = layerCheck(dir);
      return result.stdout + result.stderr;
    })();
    expect(output).toContain('adapters-are-independent');
    expect(output).toContain('only-composition-imports-inversify');
  });
});

describe('gRPC stub check', () => {
  let dir: string;
  beforeAll(() => {
    dir = copyProject();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes when the committed stubs match the protos', () => {
    const out = execFileSync('node', ['scripts/check-stubs.js'], { cwd: dir, encoding: 'utf8' });
    expect(out).toContain('match');
  });

  it('fails on a hand-edited stub', () => {
    const stub = join(dir, 'src/adapters/grpc/generated/toolport/plugin/v1/plugin.ts');
    writeFileSync(stub, readFileSync(stub, 'utf8').replace('invocationId', 'invocationIdent'));
    const result = spawnSync('node', ['scripts/check-stubs.js'], { cwd: dir, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('toolport/plugin/v1/plugin.ts');
  });
});

describe('package.json', () => {
  it('names only files that exist (built by npm ci): bin, main and every export', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      main?: string;
      bin?: Record<string, string>;
      exports?: Record<string, string>;
    };
    const named = [manifest.main, ...Object.values(manifest.bin ?? {}), ...Object.values(manifest.exports ?? {})].filter(
      (path): path is string => typeof path === 'string',
    );
    expect(named.length).toBeGreaterThan(0);
    for (const path of named) expect({ path, exists: existsSync(join(root, path)) }).toEqual({ path, exists: true });
  });
});
