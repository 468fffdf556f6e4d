import type { SessionRecord } from '../../domain/session';

/** The statuses a session may be removed in: `starting` and `live` never are. */
export type RemovableStatus = 'stopped' | 'dead';

/** Which sessions `deleteSessions` removes (docs/catalog-and-sessions.md §5). */
export interface SessionRemoval {
  /** Only sessions in one of these statuses. */
  statuses: readonly RemovableStatus[];
  /** Only those last updated (for a stopped one: stopped) before this ISO 8601 instant. */
  updatedBefore?: string;
  /** Of those, the most recently updated this many are kept. */
  keepNewest?: number;
}

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
  /**
   * Removes the sessions `which` names, atomically (a session saved as `live` meanwhile is
   * kept); answers how many it removed.
   */
  abstract deleteSessions(which: SessionRemoval): Promise<number>;
}
