import type { AgentctlLauncher } from '../ports/agentctl-launcher';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginStore } from '../ports/plugin-store';
import { markSessionDead } from './mark-session-dead';

/**
 * At backend start, after a crash: an agentctl the previous backend launched and that still
 * runs keeps its session `live` (its token is accepted when it reconnects) and is followed so
 * its exit marks the session `dead`; one that is gone leaves its session `dead`. Sessions
 * served by agentctls started elsewhere keep their status: they reconnect by themselves.
 */
export class ReconcileSessions {
  constructor(
    private readonly store: PluginStore,
    private readonly launcher: AgentctlLauncher,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  execute(): void {
    for (const session of this.store.listSessions()) {
      if (session.status !== 'live' && session.status !== 'starting') continue;
      if (!session.launched) continue;
      const exited = session.agentctl_pid === null ? undefined : this.launcher.watch(session.agentctl_pid);
      if (!exited) {
        markSessionDead(this.store, this.clock, this.logger, session.session_id, { code: null, signal: null });
        continue;
      }
      this.logger.info({ session_id: session.session_id, pid: session.agentctl_pid }, 'agentctl from an earlier backend still runs');
      void exited.then((exit) => markSessionDead(this.store, this.clock, this.logger, session.session_id, exit));
    }
  }
}
