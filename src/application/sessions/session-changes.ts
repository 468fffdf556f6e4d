import type { SessionRecord } from '../../domain/session';

export type SessionListener = (session: SessionRecord) => void;

/**
 * Every session record once it is saved (started, linked, dead, stopped…), told to each
 * listener (the console's live channel). A listener's fault is dropped, never the save's.
 */
export class SessionChanges {
  private readonly listeners = new Set<SessionListener>();

  saved(session: SessionRecord): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(session);
      } catch {
        // a watcher's fault must never fail a session change
      }
    }
  }

  /** Registers a listener for every save from now on; returns the remover. */
  onChange(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
