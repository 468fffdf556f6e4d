import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

export const FIXTURE_DIR = resolve(__dirname, '../../../fixtures/plugins');

/** A bundled SDK test plugin in its own temp folder (the folder also marks its processes in /proc). */
export interface BuiltFixture {
  dir: string;
  script: string;
  remove(): void;
}

/**
 * Bundles test/fixtures/plugins/sdk-plugin.ts (SDK, grpc-js and all), or another TypeScript
 * fixture there, into one CommonJS file.
 * Why esbuild in the test: a spawned process runs JavaScript, jest only transpiles what the
 * test itself imports, and building dist/ would tie these tests to the whole tree compiling.
 * One bundle takes about 0.3 s, once per test file.
 */
export function buildSdkFixture(entry = 'sdk-plugin'): BuiltFixture {
  const dir = mkdtempSync(join(tmpdir(), `toolport-${entry}-`));
  const script = join(dir, `${entry}.js`);
  buildSync({
    entryPoints: [join(FIXTURE_DIR, `${entry}.ts`)],
    outfile: script,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'error',
  });
  return { dir, script, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
