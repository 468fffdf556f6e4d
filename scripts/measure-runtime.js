'use strict';
/**
 * `node scripts/measure-runtime.js`: bundles scripts/measure-runtime.ts and the SDK test plugin
 * (test/fixtures/plugins/sdk-plugin.ts) with esbuild into a temp folder and runs the
 * measurement (the repository has no TypeScript runner; esbuild is a dev dependency).
 */
const { buildSync } = require('esbuild');
const { execFileSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const out = mkdtempSync(join(tmpdir(), 'toolport-measure-build-'));
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'error' };
try {
  buildSync({ ...common, entryPoints: [join(root, 'scripts/measure-runtime.ts')], outfile: join(out, 'measure.js') });
  buildSync({ ...common, entryPoints: [join(root, 'test/fixtures/plugins/sdk-plugin.ts')], outfile: join(out, 'plugin.js') });
  execFileSync(process.execPath, [join(out, 'measure.js'), join(out, 'plugin.js')], { stdio: 'inherit' });
} finally {
  rmSync(out, { recursive: true, force: true });
}
