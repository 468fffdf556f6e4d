import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';
import type { ReplicaTransaction } from './replica-roster';
import type { SealedValue } from './secret-box';

/**
 * What putState / putSecret did: `stored`; `limit_reached` when the key is new and the
 * plugin already holds `maxKeys` keys of that kind (nothing written); `no_plugin` when no
 * record with that id exists (it is being uninstalled; nothing written).
 */
export type HostEntryWrite = 'stored' | 'limit_reached' | 'no_plugin';

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
  /**
   * Removes the record together with everything kept for that plugin id: its configuration,
   * state entries and secrets. Removing an unknown id does nothing.
   */
  deletePlugin(id: string): Promise<void>;
  /** The plugin's sealed configuration, or undefined when none was ever saved. */
  getConfig(pluginId: string): Promise<SealedValue | undefined>;
  /** Saves (replaces) the plugin's sealed configuration; call it for a plugin whose record exists. */
  saveConfig(pluginId: string, config: SealedValue): Promise<void>;
  /** The next value for `install_seq`: greater than every one handed out before. */
  nextInstallSeq(): Promise<number>;
  /** The stored catalog state, or undefined before the first generation was opened. */
  catalogState(): Promise<CatalogState | undefined>;
  saveCatalogState(state: CatalogState): Promise<void>;
  /** Present only on a store several replicas share (docs/operations.md §10): their plugin copies. */
  readonly replicas?: ReplicaTransaction;
}

/**
 * Durable records of installed plugins (with their configuration, state and secrets), task
 * sessions, the catalog state and the boot counter.
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

  /** The committed sealed configuration of the plugin, or undefined when none was saved. */
  abstract getConfig(pluginId: string): Promise<SealedValue | undefined>;

  // The Host API's entries (docs/plugin-protocol.md §13). Keys are compared, ordered and matched by their
  // bytes (binary collation; valid keys are ASCII). The caller checks key and value rules;
  // the store enforces only the key count, atomically with the write. Each call is atomic on
  // its own and never waits for a transaction to be more than queued behind it.

  /** The JSON text stored under `key`, exactly as it was put, or undefined. */
  abstract getState(pluginId: string, key: string): Promise<string | undefined>;
  /**
   * Inserts or replaces `key`. Replacing an existing key is always allowed; a new key only
   * while the plugin holds fewer than `maxKeys` state keys. See HostEntryWrite.
   */
  abstract putState(pluginId: string, key: string, valueJson: string, maxKeys: number): Promise<HostEntryWrite>;
  /** Removes `key`; resolves whether it existed. */
  abstract deleteState(pluginId: string, key: string): Promise<boolean>;
  /**
   * The plugin's state keys that start with `prefix` and sort strictly after `after` (when
   * given), in byte order, at most `limit` of them (limit ≥ 1).
   */
  abstract listStateKeys(pluginId: string, prefix: string, after: string | undefined, limit: number): Promise<string[]>;

  /** The sealed plugin secret stored under `key`, or undefined. */
  abstract getSecret(pluginId: string, key: string): Promise<SealedValue | undefined>;
  /** As putState, for the plugin's secrets (counted apart from its state keys). */
  abstract putSecret(pluginId: string, key: string, value: SealedValue, maxKeys: number): Promise<HostEntryWrite>;
  /** Removes the secret under `key`; resolves whether it existed. */
  abstract deleteSecret(pluginId: string, key: string): Promise<boolean>;

  /** Increments the stored boot counter and returns the new value (1 on a new store). */
  abstract incrementBootCounter(): Promise<number>;

  /** Releases the underlying resource; later calls reject. Idempotent. */
  abstract close(): Promise<void>;
}
