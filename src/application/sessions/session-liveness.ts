import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginStore } from '../ports/plugin-store';
import { errorMessage } from '../shared/error-code';

export interface AgentctlExit {
  code: number | null;
  signal: string | null;
}

/**
 * Follows the agentctls the backend launched (or adopted after a restart): one that exits
 * without being stopped leaves its session `dead`; a stopped one stays `stopped`. dispose()
 * (shutdown) stops following, so no exit is ever acted on after the store closed.
 */
export class SessionLiveness {
  private disposed = false;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly store: PluginStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Marks the session dead once `exited` resolves, unless it was stopped or liveness disposed. */
  follow(sessionId: string, exited: Promise<AgentctlExit>): void {
    void exited.then((exit) => {
      if (this.disposed) return;
      const marking = this.markDead(sessionId, exit).catch((error: unknown) =>
        this.logger.error({ session_id: sessionId, err: errorMessage(error) }, 'could not mark the session dead'),
      );
      this.pending.add(marking);
      void marking.finally(() => this.pending.delete(marking));
    });
  }

  /** Marks a session whose agentctl is gone dead now (found gone at startup). */
  markGone(sessionId: string): Promise<void> {
    return this.markDead(sessionId, { code: null, signal: null });
  }

  /** Stops following exits; resolves once markings already under way are stored. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.pending]);
  }

  private async markDead(sessionId: string, exit: AgentctlExit): Promise<void> {
    const session = await this.store.getSession(sessionId);
    if (!session || (session.status !== 'live' && session.status !== 'starting')) return;
    await this.store.saveSession({ ...session, status: 'dead', updated_at: this.clock.isoNow() });
    this.logger.warn({ session_id: sessionId, exit_code: exit.code, signal: exit.signal }, 'agentctl exited');
  }
}
