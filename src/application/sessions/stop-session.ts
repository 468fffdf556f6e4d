import type { SessionRecord } from '../../domain/session';
import type { AgentctlLauncher } from '../ports/agentctl-launcher';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { SessionStore } from '../ports/session-store';
import { findSession } from './find-session';

/**
 * Stops a session: it is `stopped` first (so its token stops authenticating and its exit is
 * not taken for a death), then the agentctl the backend launched for it is stopped.
 * Stopping a stopped session changes nothing.
 */
export class StopSession {
  constructor(
    private readonly store: SessionStore,
    private readonly launcher: AgentctlLauncher,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(sessionId: string): Promise<void> {
    const session = await findSession(this.store, sessionId);
    await stopOne(session, this.store, this.launcher, this.clock);
    this.logger.info({ session_id: sessionId }, 'session stopped');
  }
}

/** Marks `session` stopped and stops its launched agentctl, if it still runs. */
export async function stopOne(session: SessionRecord, store: SessionStore, launcher: AgentctlLauncher, clock: Clock): Promise<void> {
  if (session.status === 'stopped') return;
  const wasRunning = session.status === 'live' || session.status === 'starting';
  await store.saveSession({ ...session, status: 'stopped', updated_at: clock.isoNow() });
  if (wasRunning && session.launched && session.agentctl_pid !== null)
    await launcher.stop({ pid: session.agentctl_pid, startTime: session.agentctl_start_time });
}
