'use strict';
/**
 * `npm run screenshots`: bundles scripts/console-screenshots.ts with esbuild (the repository has
 * no TypeScript runner) under node_modules/.cache and runs it from the checkout, which refreshes
 * docs/console/*.png. Needs the build (`npm run build`, `npm run build:examples`) and
 * /usr/bin/chromium.
 */
const { buildSync } = require('esbuild');
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
for (const built of ['dist/console/index.html', 'examples/plugins/echo/dist/main.js']) {
  if (!existsSync(join(root, built))) {
    console.error(`${built} is missing: run \`npm run build && npm run build:examples\` first`);
    process.exit(1);
  }
}
const out = join(root, 'node_modules', '.cache', 'toolport-screenshots', 'main.js');
buildSync({
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  logLevel: 'error',
  entryPoints: [join(root, 'scripts', 'console-screenshots.ts')],
  outfile: out,
});
try {
  execFileSync(process.execPath, [out], { cwd: root, stdio: 'inherit', env: { ...process.env, TOOLPORT_BENCH_REPO: root } });
} catch (error) {
  process.exit(typeof error.status === 'number' ? error.status : 1);
}
