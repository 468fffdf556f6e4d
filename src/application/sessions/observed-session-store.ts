import type { SessionRecord } from '../../domain/session';
import { SessionStore, type SessionRemoval } from '../ports/session-store';
import type { SessionChanges } from './session-changes';

/**
 * The session store every use case is given, telling SessionChanges of each session it saves:
 * a session is saved from half a dozen places (hello, link down, dead, stop, reissue), and this
 * is the one place they all pass through. A start saves its session inside a store transaction
 * (with its profile check), which does not pass here: StartSession tells SessionChanges itself
 * once that transaction has committed. Reads are handed on unchanged.
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
