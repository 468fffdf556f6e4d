import { ToolportError } from '../../domain/errors';
import type { SessionIdentity } from '../../domain/session';
import type { AgentctlLauncher } from '../ports/agentctl-launcher';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { Replication } from '../ports/replication';
import type { SessionStore } from '../ports/session-store';
import type { SessionLiveness } from './session-liveness';

/**
 * `agentctl.hello`: the session's agentctl linked, so the session is `live` (again, if its
 * link had been down long enough to make it `dead`), linked now; answers the bound identity.
 * On a shared store this replica, which now holds its link, is the one that follows it
 * (docs/operations.md §10): a launched agentctl running on this machine has its exit followed
 * here too. UNAUTHORIZED for a stopped or unknown session.
 */
export class RegisterAgentctl {
  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly replication: Replication,
    private readonly launcher: AgentctlLauncher,
    private readonly liveness: SessionLiveness,
  ) {}

  async execute(sessionId: string): Promise<SessionIdentity> {
    const session = await this.store.getSession(sessionId);
    if (!session || session.status === 'stopped') throw new ToolportError('UNAUTHORIZED', 'unknown or ended session');
    const now = this.clock.isoNow();
    const self = this.replication.replicaId();
    const follower = self ?? session.agentctl_replica;
    await this.store.saveSession({ ...session, status: 'live', agentctl_replica: follower, last_linked_at: now, link_down_since: null, updated_at: now });
    this.logger.info({ session_id: session.session_id, was: session.status }, 'agentctl linked');
    if (self !== null && session.launched && session.agentctl_pid !== null && !this.liveness.follows(session.session_id)) {
      // Another replica launched it (it may be gone): its exit is noticed here at once, not only when its link drops.
      const exited = this.launcher.watch({ pid: session.agentctl_pid, startTime: session.agentctl_start_time });
      if (exited) this.liveness.follow(session.session_id, exited);
    }
    return { task_id: session.task_id, session_id: session.session_id, workspace_id: session.workspace_id, surface: session.surface };
  }
}
