#!/usr/bin/env node
/**
 * Bundles every example plugin (`examples/plugins/<name>/src/main.ts`) into one executable
 * file, `examples/plugins/<name>/dist/main.js`, so each example folder is a complete package
 * that `toolport plugin install examples/plugins/<name>` accepts. Run by `npm ci` through
 * `prepare`, after the SDK package (packages/plugin-sdk) was built; falls back to its TypeScript source otherwise.
 */
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const examplesDir = path.join(root, 'examples', 'plugins');

function sdkEntry() {
  const sdk = path.join(root, 'packages', 'plugin-sdk');
  const built = path.join(sdk, 'dist', 'index.js');
  return fs.existsSync(built) ? built : path.join(sdk, 'src', 'index.ts');
}

function buildExample(name, sdk) {
  const dir = path.join(examplesDir, name);
  const outfile = path.join(dir, 'dist', 'main.js');
  esbuild.buildSync({
    entryPoints: [path.join(dir, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    alias: { '@toolport/plugin-sdk': sdk },
    banner: { js: '#!/usr/bin/env node' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.chmodSync(outfile, 0o755);
  return path.relative(root, outfile);
}

function main() {
  const names = fs
    .readdirSync(examplesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(examplesDir, e.name, 'src', 'main.ts')))
    .map((e) => e.name)
    .sort();
  const sdk = sdkEntry();
  for (const name of names) console.log(`built ${buildExample(name, sdk)}`);
}

main();
