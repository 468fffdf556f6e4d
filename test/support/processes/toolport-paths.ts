import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** The standalone agentctl file `npm run build` writes (docs/agentctl.md). */
export const AGENTCTL_BUNDLE = join(process.env.TOOLPORT_BENCH_APP ?? REPO_ROOT, 'dist', 'agentctl.js');

/** Set to `bundle` (or to an agentctl file's path), the kit's agentctls run the standalone file. */
export const AGENTCTL_UNDER_TEST_ENV = 'TOOLPORT_TEST_AGENTCTL';

let lone: { dir: string; file: string } | undefined;

/**
 * A copy of `file` alone in a fresh folder under the system's temp folder, which has no
 * node_modules on its way up: whatever it requires must be inside it. Made once per process
 * and removed when it exits.
 */
export function loneAgentctlCopy(file = AGENTCTL_BUNDLE): string {
  if (lone === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'toolport-lone-agentctl-'));
    copyFileSync(file, join(dir, 'agentctl.js'));
    lone = { dir, file: join(dir, 'agentctl.js') };
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return lone.file;
}

/**
 * The arguments after `node` that start one agentctl: `bin/toolport agentctl`, or with
 * TOOLPORT_TEST_AGENTCTL=bundle the standalone file, copied alone (a path there runs that file).
 */
export function agentctlArgs(): string[] {
  const choice = process.env[AGENTCTL_UNDER_TEST_ENV] ?? '';
  if (choice === '') return [TOOLPORT_BIN, 'agentctl'];
  return [choice === 'bundle' ? loneAgentctlCopy() : resolve(choice)];
}
