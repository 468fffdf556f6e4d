import { spawnSync } from 'node:child_process';
import { bwrapArguments, hostSystemEntries } from './bwrap-arguments';

/** Where Debian's bubblewrap puts its program. */
export const BWRAP = '/usr/bin/bwrap';
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Whether bubblewrap can make a plugin's sandbox here: runs `true` once in the same
 * namespaces a plugin gets (as `uid` when given, the way a root backend runs plugins).
 * Null when it can; else why not, in words for the operator.
 */
export function sandboxUnavailable(bwrap = BWRAP, uid?: number): string | null {
  // A plugin's layout made of system folders only: nothing of the data dir is needed to probe.
  const layout = { installDir: '/usr', dataDir: '/usr', tmpDir: '/usr', network: false, readPaths: [], writePaths: [], uid };
  const probe = spawnSync(bwrap, bwrapArguments(layout, '/usr/bin/true', [], hostSystemEntries()), {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: PROBE_TIMEOUT_MS,
    env: { PATH: '/usr/bin:/bin' },
  });
  if (probe.error) {
    const code = (probe.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${bwrap} is not installed (Debian package bubblewrap)` : `${bwrap} could not run (${probe.error.message})`;
  }
  if (probe.status === 0) return null;
  const said = probe.stderr.toString('utf8').trim().split('\n').slice(-1)[0] ?? '';
  return `${bwrap} cannot make a sandbox here (${said || `exit ${probe.status ?? probe.signal}`}); user namespaces may be disabled`;
}
