import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

/** A TypeScript plugin bundled into one CommonJS file in a folder of its own (the folder also marks its processes in /proc). */
export interface BundledFixture {
  dir: string;
  script: string;
  remove(): void;
}

/**
 * Bundles the TypeScript file `entry` with what it imports (the SDK's source, grpc-js and all)
 * into `<its name>.js` in a fresh temp folder. Why esbuild in the test: a spawned process runs
 * JavaScript, jest transpiles only what a test itself imports, and building dist/ would tie
 * these tests to the whole tree compiling. About 0.3 s, once per test file.
 */
export function bundleEntry(entry: string): BundledFixture {
  const name = basename(entry, '.ts');
  const dir = mkdtempSync(join(tmpdir(), `toolport-${name}-`));
  const script = join(dir, `${name}.js`);
  buildSync({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'error',
  });
  return { dir, script, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Bundles this package's `test/fixtures/<name>.ts` (see bundleEntry). */
export function bundleFixture(name: string): BundledFixture {
  return bundleEntry(resolve(__dirname, '..', 'fixtures', `${name}.ts`));
}
