import { PluginStore } from '../../application/ports/plugin-store';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';

/**
 * A PluginStore held in memory (tests, and a backend run without a data dir). Values are
 * deep-copied in and out so callers can never change what is stored behind its back, just as
 * with a database.
 */
export class InMemoryPluginStore extends PluginStore {
  private readonly plugins = new Map<string, PluginRecord>();
  private readonly sessions = new Map<string, SessionRecord>();
  private lastInstallSeq = 0;
  private bootCounter = 0;
  private closed = false;

  listPlugins(): PluginRecord[] {
    this.assertOpen();
    return [...this.plugins.values()].sort((a, b) => a.install_seq - b.install_seq).map(copy);
  }

  getPlugin(id: string): PluginRecord | undefined {
    this.assertOpen();
    const record = this.plugins.get(id);
    return record && copy(record);
  }

  savePlugin(record: PluginRecord): void {
    this.assertOpen();
    this.plugins.set(record.id, copy(record));
    this.lastInstallSeq = Math.max(this.lastInstallSeq, record.install_seq);
  }

  deletePlugin(id: string): void {
    this.assertOpen();
    this.plugins.delete(id);
  }

  nextInstallSeq(): number {
    this.assertOpen();
    this.lastInstallSeq += 1;
    return this.lastInstallSeq;
  }

  listSessions(): SessionRecord[] {
    this.assertOpen();
    return [...this.sessions.values()].sort((a, b) => a.created_at.localeCompare(b.created_at)).map(copy);
  }

  getSession(sessionId: string): SessionRecord | undefined {
    this.assertOpen();
    const session = this.sessions.get(sessionId);
    return session && copy(session);
  }

  findSessionByTokenHash(tokenHash: string): SessionRecord | undefined {
    this.assertOpen();
    const session = [...this.sessions.values()].find((s) => s.session_token_hash === tokenHash);
    return session && copy(session);
  }

  saveSession(session: SessionRecord): void {
    this.assertOpen();
    this.sessions.set(session.session_id, copy(session));
  }

  incrementBootCounter(): number {
    this.assertOpen();
    this.bootCounter += 1;
    return this.bootCounter;
  }

  close(): void {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the plugin store is closed');
  }
}

function copy<T>(value: T): T {
  return structuredClone(value);
}
