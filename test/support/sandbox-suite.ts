import { BWRAP, sandboxUnavailable } from '../../src/adapters/grpc/sandbox/sandbox-probe';

/**
 * How the sandbox red-team suite (test/e2e/sandbox/) treats a machine where bubblewrap cannot
 * run, from TOOLPORT_SANDBOX_SUITE_MODE: `require` (what CI exports in .ci/run) fails every test
 * of the suite up front; `auto` (the default) still runs the `--plugin-sandbox off` half, which
 * proves the attacks can see access, and fails each sandboxed test with the reason. Neither
 * passes without a working sandbox: a quiet fallback would prove nothing.
 */
export type SandboxSuiteMode = 'require' | 'auto';

export function sandboxSuiteMode(env: NodeJS.ProcessEnv = process.env): SandboxSuiteMode {
  const value = env.TOOLPORT_SANDBOX_SUITE_MODE ?? 'auto';
  if (value === 'require' || value === 'auto') return value;
  throw new Error(`TOOLPORT_SANDBOX_SUITE_MODE must be require or auto, not ${JSON.stringify(value)}`);
}

/** A plugin uid under a root backend: the backend probes bubblewrap as one, so this does too. */
const PROBE_UID = 2_099_999;

/**
 * Null when bubblewrap can make a plugin's sandbox here (probed the way a backend of this user
 * does); else the sentence a failing test shows.
 */
export function sandboxSuiteProblem(mode: SandboxSuiteMode, bwrap = BWRAP): string | null {
  const why = sandboxUnavailable(bwrap, process.getuid?.() === 0 ? PROBE_UID : undefined);
  if (why === null) return null;
  const then =
    mode === 'require'
      ? 'TOOLPORT_SANDBOX_SUITE_MODE=require fails the whole suite'
      : 'TOOLPORT_SANDBOX_SUITE_MODE=auto ran the --plugin-sandbox off half only; nothing here proves the sandbox';
  return `the sandbox red-team suite cannot sandbox a plugin on this machine: ${why}. Install Debian's bubblewrap and allow unprivileged user namespaces; ${then}`;
}
