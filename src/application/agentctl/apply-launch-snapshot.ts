import type { Violation } from '../../domain/errors';
import type { ApplySnapshot } from './apply-snapshot';
import type { AgentctlSession } from './session-identity';

export type LaunchSnapshotResult = { kind: 'applied' } | { kind: 'ignored' } | { kind: 'malformed'; violations: Violation[] };

/**
 * The snapshot a launcher hands an agentctl at start, so it serves the catalog before it has
 * linked. It is taken only from a launch that names the whole session (the tools shown depend
 * on its surface); otherwise it is ignored and the first pull brings one.
 */
export class ApplyLaunchSnapshot {
  constructor(
    private readonly session: AgentctlSession,
    private readonly applySnapshot: ApplySnapshot,
  ) {}

  /** `read` is called only when the snapshot is taken. */
  execute(read: () => unknown): LaunchSnapshotResult {
    if (this.session.current() === null) return { kind: 'ignored' };
    const result = this.applySnapshot.execute(read());
    return result.ok ? { kind: 'applied' } : { kind: 'malformed', violations: result.violations };
  }
}
