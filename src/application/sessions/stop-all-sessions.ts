import type { AgentctlLauncher } from '../ports/agentctl-launcher';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { SessionStore } from '../ports/session-store';
import { stopOne } from './stop-session';

/**
 * Shutdown: stops every agentctl this backend launched and marks those sessions `stopped`.
 * Sessions served by agentctls started elsewhere are left as they are: those keep serving
 * and reconnect to the next backend on this data dir.
 */
export class StopAllSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly launcher: AgentctlLauncher,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(): Promise<void> {
    const running = (await this.store.listSessions()).filter((s) => s.launched && (s.status === 'live' || s.status === 'starting'));
    await Promise.all(running.map((session) => stopOne(session, this.store, this.launcher, this.clock)));
    if (running.length > 0) this.logger.info({ sessions: running.length }, 'stopped the agentctls this backend launched');
  }
}
