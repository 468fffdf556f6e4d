import { ToolportError } from '../../domain/errors';
import type { SessionIdentity } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { SessionStore } from '../ports/session-store';

/**
 * `agentctl.hello`: the session's agentctl linked, so the session is `live` (again, if its
 * link had been down long enough to make it `dead`), linked now; answers the bound identity.
 * UNAUTHORIZED for a stopped or unknown session.
 */
export class RegisterAgentctl {
  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(sessionId: string): Promise<SessionIdentity> {
    const session = await this.store.getSession(sessionId);
    if (!session || session.status === 'stopped') throw new ToolportError('UNAUTHORIZED', 'unknown or ended session');
    const now = this.clock.isoNow();
    await this.store.saveSession({ ...session, status: 'live', last_linked_at: now, link_down_since: null, updated_at: now });
    this.logger.info({ session_id: session.session_id, was: session.status }, 'agentctl linked');
    return { task_id: session.task_id, session_id: session.session_id, workspace_id: session.workspace_id, surface: session.surface };
  }
}
