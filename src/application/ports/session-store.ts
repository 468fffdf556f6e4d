import type { SessionRecord } from '../../domain/session';

/**
 * Durable task sessions. Each call is atomic on its own; reads see committed data only.
 * Every method rejects once the store is closed.
 */
export abstract class SessionStore {
  /** Every session, stopped and dead ones included, ordered by `created_at`. */
  abstract listSessions(): Promise<SessionRecord[]>;
  abstract getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** The session whose token hashes to `tokenHash`, or undefined. */
  abstract findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined>;
  /** Inserts or replaces the session with the same id, atomically. */
  abstract saveSession(session: SessionRecord): Promise<void>;
}
