import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The checkout. The bench runs this kit bundled into another folder, where `__dirname` says
 * nothing, so scripts/bench.js names the checkout in TOOLPORT_BENCH_REPO.
 */
export const REPO_ROOT = process.env.TOOLPORT_BENCH_REPO ?? resolve(__dirname, '..', '..', '..');

/** The `toolport` the kit runs: the checkout's, or the bench's private app copy (TOOLPORT_BENCH_APP). */
export const TOOLPORT_BIN = join(process.env.TOOLPORT_BENCH_APP ?? REPO_ROOT, 'bin', 'toolport');

/**
 * Where a backend keeps `plugins/` and `plugin-data/` (docs/operations.md §4): under
 * `plugin-root/` when it runs plugins as uids of their own (a root backend, the sandbox not
 * off), else directly in the data dir.
 */
export function pluginFolders(dataDir: string): string {
  const root = join(dataDir, 'plugin-root');
  return existsSync(root) ? root : dataDir;
}
