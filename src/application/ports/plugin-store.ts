import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';

/**
 * What one store transaction may read and write: the plugin records and the catalog state
 * that every change to them moves, so a change and the catalog revision it causes commit
 * together or not at all.
 */
export interface StoreTransaction {
  /** Every plugin record, ordered by `install_seq`. */
  listPlugins(): Promise<PluginRecord[]>;
  /** The record for `id`, or undefined. */
  getPlugin(id: string): Promise<PluginRecord | undefined>;
  /** Inserts or replaces the record with the same id. */
  savePlugin(record: PluginRecord): Promise<void>;
  /** Removes the record; removing an unknown id does nothing. */
  deletePlugin(id: string): Promise<void>;
  /** The next value for `install_seq`: greater than every one handed out before. */
  nextInstallSeq(): Promise<number>;
  /** The stored catalog state, or undefined before the first generation was opened. */
  catalogState(): Promise<CatalogState | undefined>;
  saveCatalogState(state: CatalogState): Promise<void>;
}

/**
 * Durable records of installed plugins, task sessions, the catalog state and the boot counter.
 *
 * Changes to plugins run in transaction(): one at a time for the whole installation (the
 * single catalog writer), all or nothing. Reading methods outside a transaction see only
 * committed data. Every method rejects once the store is closed.
 */
export abstract class PluginStore {
  /**
   * Runs `work` as one transaction, serialised with every other transaction on this store
   * (and, for a shared store, on every backend using it). Commits when `work` resolves; rolls
   * back everything it wrote and rejects with its error when it rejects. `work` must not wait
   * on anything slow (a process start): the whole installation waits for it.
   */
  abstract transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;

  /** Every plugin record, ordered by `install_seq`. */
  abstract listPlugins(): Promise<PluginRecord[]>;
  /** The record for `id`, or undefined. */
  abstract getPlugin(id: string): Promise<PluginRecord | undefined>;

  /** Every session, stopped and dead ones included, ordered by `created_at`. */
  abstract listSessions(): Promise<SessionRecord[]>;
  abstract getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** The session whose token hashes to `tokenHash`, or undefined. */
  abstract findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined>;
  /** Inserts or replaces the session with the same id, atomically. */
  abstract saveSession(session: SessionRecord): Promise<void>;

  /** Increments the stored boot counter and returns the new value (1 on a new store). */
  abstract incrementBootCounter(): Promise<number>;

  /** Releases the underlying resource; later calls reject. Idempotent. */
  abstract close(): Promise<void>;
}
