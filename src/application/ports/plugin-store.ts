import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';

/**
 * Durable records of installed plugins, task sessions and the boot counter.
 *
 * Synchronous on purpose: the default store is an embedded SQLite file (better-sqlite3 is
 * synchronous), so a status or version change is one transaction with no interleaving, and
 * the single-writer catalog never observes a half-written record.
 */
export abstract class PluginStore {
  /** Every plugin record, ordered by `install_seq`. */
  abstract listPlugins(): PluginRecord[];
  /** The record for `id`, or undefined. */
  abstract getPlugin(id: string): PluginRecord | undefined;
  /** Inserts or replaces the record with the same id, atomically. */
  abstract savePlugin(record: PluginRecord): void;
  /** Removes the record; removing an unknown id does nothing. */
  abstract deletePlugin(id: string): void;
  /** The next value for `install_seq`: greater than every one handed out before. */
  abstract nextInstallSeq(): number;

  /** Every session, stopped and dead ones included, ordered by `created_at`. */
  abstract listSessions(): SessionRecord[];
  abstract getSession(sessionId: string): SessionRecord | undefined;
  /** The session whose token hashes to `tokenHash`, or undefined. */
  abstract findSessionByTokenHash(tokenHash: string): SessionRecord | undefined;
  /** Inserts or replaces the session with the same id, atomically. */
  abstract saveSession(session: SessionRecord): void;

  /** Increments the stored boot counter and returns the new value (1 on a new store). */
  abstract incrementBootCounter(): number;

  /** Releases the underlying resource; later calls throw. */
  abstract close(): void;
}
