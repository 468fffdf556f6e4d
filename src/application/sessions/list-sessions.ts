import type { SessionStore } from '../ports/session-store';
import { sessionView, type SessionView } from './session-view';

/** Every session, stopped and dead ones included, oldest first, without tokens. */
export class ListSessions {
  constructor(private readonly store: SessionStore) {}

  async execute(): Promise<SessionView[]> {
    return (await this.store.listSessions()).map(sessionView);
  }
}
