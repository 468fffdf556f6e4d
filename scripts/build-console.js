#!/usr/bin/env node
// Builds the operator console (src/console) into dist/console: one bundled script (Preact, htm
// and eventsource-parser inside, nothing fetched at run time; the src/api types it imports are
// erased), its stylesheet and its page. Part of `npm run build`.
const { buildSync } = require('esbuild');
const { copyFileSync, mkdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const source = join(root, 'src', 'console');
const out = join(root, 'dist', 'console');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
buildSync({
  entryPoints: [join(source, 'main.ts')],
  outfile: join(out, 'console.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  tsconfig: join(source, 'tsconfig.json'),
  logLevel: 'warning',
});
copyFileSync(join(source, 'index.html'), join(out, 'index.html'));
for (const file of ['console.css', 'favicon.svg']) copyFileSync(join(source, file), join(out, file));
