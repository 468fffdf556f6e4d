#!/usr/bin/env node
// Makes package/, the folder Toolport installs: manifest.yaml and main.js, the plugin bundled
// into one executable file (SDK and gRPC included), and nothing else.
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const out = path.join(__dirname, 'package');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);
esbuild.buildSync({
  entryPoints: [path.join(__dirname, 'src', 'index.ts')],
  outfile: path.join(out, 'main.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // The host runs main.js itself: without this line the shell would read it.
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'none',
  logLevel: 'warning',
});
fs.chmodSync(path.join(out, 'main.js'), 0o755);
fs.copyFileSync(path.join(__dirname, 'manifest.yaml'), path.join(out, 'manifest.yaml'));
console.log(`built ${path.relative(process.cwd(), out) || out}/`);
