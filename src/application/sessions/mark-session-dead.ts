import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginStore } from '../ports/plugin-store';

/** An agentctl that exits without being stopped leaves its session `dead`; a stopped one stays `stopped`. */
export function markSessionDead(
  store: PluginStore,
  clock: Clock,
  logger: Logger,
  sessionId: string,
  exit: { code: number | null; signal: string | null },
): void {
  const session = store.getSession(sessionId);
  if (!session || (session.status !== 'live' && session.status !== 'starting')) return;
  store.saveSession({ ...session, status: 'dead', updated_at: clock.isoNow() });
  logger.warn({ session_id: sessionId, exit_code: exit.code, signal: exit.signal }, 'agentctl exited');
}
