import { ToolportError } from '../../domain/errors';
import type { SessionRecord } from '../../domain/session';
import type { SessionStore } from '../ports/session-store';

/** The session an operator named, or ToolportError NOT_FOUND (docs/http-api.md §6). */
export async function findSession(store: Pick<SessionStore, 'getSession'>, sessionId: string): Promise<SessionRecord> {
  const session = await store.getSession(sessionId);
  if (!session) throw new ToolportError('NOT_FOUND', `no session "${sessionId}"`);
  return session;
}
