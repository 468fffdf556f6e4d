import type { AgentctlLauncher } from '../ports/agentctl-launcher';
import type { Logger } from '../ports/logger';
import type { SessionStore } from '../ports/session-store';
import type { SessionLiveness } from './session-liveness';

/**
 * At backend start, after a crash: an agentctl the previous backend launched and that still
 * runs keeps its session `live` (its token is accepted when it reconnects) and is followed so
 * its exit marks the session `dead`; one that is gone leaves its session `dead`. A session
 * served by an agentctl started elsewhere has its grace period to link to this backend.
 */
export class ReconcileSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly launcher: AgentctlLauncher,
    private readonly liveness: SessionLiveness,
    private readonly logger: Logger,
  ) {}

  async execute(): Promise<void> {
    for (const session of await this.store.listSessions()) {
      if (session.status !== 'live' && session.status !== 'starting') continue;
      if (!session.launched) {
        await this.liveness.awaitRelink(session);
        continue;
      }
      const exited = session.agentctl_pid === null ? undefined : this.launcher.watch({ pid: session.agentctl_pid, startTime: session.agentctl_start_time });
      if (!exited) {
        await this.liveness.markGone(session.session_id);
        continue;
      }
      this.logger.info({ session_id: session.session_id, pid: session.agentctl_pid }, 'agentctl from an earlier backend still runs');
      this.liveness.follow(session.session_id, exited);
    }
  }
}
