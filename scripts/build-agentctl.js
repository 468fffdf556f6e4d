#!/usr/bin/env node
// Builds the standalone agentctl, dist/agentctl.js (docs/agentctl.md): src/composition/
// agentctl-entry.ts and everything it reaches in one CommonJS file for Node ≥ 20, so that
// `node agentctl.js <options>` runs with no node_modules anywhere. Part of `npm run build`;
// scripts/bench.js builds its own copy with buildAgentctl().
const { buildSync } = require('esbuild');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

/**
 * Writes the bundle to `outfile`; with `metafile`, esbuild's account of what went in beside it.
 * With `write: false` it writes nothing and answers esbuild's result (its metafile included).
 */
function buildAgentctl(outfile, { metafile = false, write = true } = {}) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const result = buildSync({
    entryPoints: [join(root, 'src', 'composition', 'agentctl-entry.ts')],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // V8 holds the whole source for as long as the process lives: without whitespace and
    // comments it holds less. (Renamed identifiers measured 10 MB more resident, not less.)
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    banner: { js: '#!/usr/bin/env node' },
    define: { TOOLPORT_BUNDLED_VERSION: JSON.stringify(version) },
    // Node's Headers/Request/Response are undici's, loaded whole on first use (~9 MB resident):
    // the agentctl's HTTP exchange gets small ones instead (src/adapters/mcp/light-web-classes.ts).
    inject: [join(root, 'src', 'adapters', 'mcp', 'light-web-classes.ts')],
    // The MCP SDK's Node shims carry (and evaluate at import) a second ajv of their own: this
    // one checks with the ajv the file already has (src/adapters/mcp/sdk-node-shims.ts).
    alias: { '@modelcontextprotocol/server/_shims': join(root, 'src', 'adapters', 'mcp', 'sdk-node-shims.ts') },
    // ws asks for these native speed-ups inside a try and does without them.
    external: ['bufferutil', 'utf-8-validate'],
    tsconfig: join(root, 'tsconfig.build.json'),
    // A package's ES module build where it has one: esbuild drops what nobody imports from it
    // (most of @opentelemetry/semantic-conventions and the metrics half of the OTLP exporter).
    mainFields: ['module', 'main'],
    metafile: metafile || !write,
    write,
    logLevel: 'warning',
  });
  if (write && metafile) writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
  return result;
}

module.exports = { buildAgentctl };

if (require.main === module) buildAgentctl(join(root, 'dist', 'agentctl.js'), { metafile: process.argv.includes('--metafile') });
