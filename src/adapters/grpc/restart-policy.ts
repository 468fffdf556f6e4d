/** The §3 restart numbers: base, 2×, 4×, … base for `maxRestarts` attempts; reset after a stable run. */
export interface RestartPolicy {
  restartBackoffMs: number;
  maxRestarts: number;
  stableResetMs: number;
}

/** Delay before restart attempt `attempt` (1-based): base × 2^(attempt − 1). */
export function restartDelayMs(policy: RestartPolicy, attempt: number): number {
  return policy.restartBackoffMs * 2 ** (attempt - 1);
}
