/**
 * The §3 supervision numbers, one policy for every runtime: a process that exits or fails
 * `healthFailuresToCrash` health checks in a row (each within `healthDeadlineMs`) is down; it
 * is restarted after base, 2×base, 4×base … for `maxRestarts` attempts, then given up on; the
 * attempt count starts over once a process has been active for `stableResetMs`.
 */
export interface SupervisionPolicy {
  restartBackoffMs: number;
  maxRestarts: number;
  stableResetMs: number;
  healthIntervalMs: number;
  healthDeadlineMs: number;
  healthFailuresToCrash: number;
}

export const DEFAULT_SUPERVISION: SupervisionPolicy = {
  restartBackoffMs: 1000,
  maxRestarts: 5,
  stableResetMs: 60_000,
  healthIntervalMs: 5000,
  healthDeadlineMs: 1000,
  healthFailuresToCrash: 3,
};

/** Delay before restart attempt `attempt` (1-based): base × 2^(attempt − 1). */
export function restartDelayMs(policy: SupervisionPolicy, attempt: number): number {
  return policy.restartBackoffMs * 2 ** (attempt - 1);
}
