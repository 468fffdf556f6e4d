import { ToolportError } from '../../domain/errors';
import type { SessionIdentity } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { Replication } from '../ports/replication';
import type { SessionStore } from '../ports/session-store';

/**
 * `agentctl.hello`: the session's agentctl linked, so the session is `live` (again, if its
 * link had been down long enough to make it `dead`), linked now; answers the bound identity.
 * On a shared store this replica, which now holds its link, is the one that follows it
 * (docs/operations.md §10). UNAUTHORIZED for a stopped or unknown session.
 */
export class RegisterAgentctl {
  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly replication: Replication,
  ) {}

  async execute(sessionId: string): Promise<SessionIdentity> {
    const session = await this.store.getSession(sessionId);
    if (!session || session.status === 'stopped') throw new ToolportError('UNAUTHORIZED', 'unknown or ended session');
    const now = this.clock.isoNow();
    const follower = this.replication.replicaId() ?? session.agentctl_replica;
    await this.store.saveSession({ ...session, status: 'live', agentctl_replica: follower, last_linked_at: now, link_down_since: null, updated_at: now });
    this.logger.info({ session_id: session.session_id, was: session.status }, 'agentctl linked');
    return { task_id: session.task_id, session_id: session.session_id, workspace_id: session.workspace_id, surface: session.surface };
  }
}
