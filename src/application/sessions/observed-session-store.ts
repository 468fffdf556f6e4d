import type { SessionRecord } from '../../domain/session';
import { SessionStore, type SessionRemoval } from '../ports/session-store';
import type { SessionChanges } from './session-changes';

/**
 * The session store every use case is given, telling SessionChanges of each session it saves:
 * a session is saved from half a dozen places (start, hello, link down, dead, stop), and this
 * is the one place all of them pass through. Reads are handed on unchanged.
 */
export class ObservedSessionStore extends SessionStore {
  constructor(
    private readonly inner: SessionStore,
    private readonly changes: SessionChanges,
  ) {
    super();
  }

  async saveSession(session: SessionRecord): Promise<void> {
    await this.inner.saveSession(session);
    this.changes.saved(session);
  }

  listSessions(): Promise<SessionRecord[]> {
    return this.inner.listSessions();
  }
  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.inner.getSession(sessionId);
  }
  findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    return this.inner.findSessionByTokenHash(tokenHash);
  }
  deleteSessions(which: SessionRemoval): Promise<number> {
    return this.inner.deleteSessions(which);
  }
}
