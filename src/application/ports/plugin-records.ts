import type { ApprovalRule } from '../../domain/approvals';
import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecord } from '../../domain/plugin-record';
import type { CatalogPolicy, PluginScope, Profile } from '../../domain/scopes';
import type { SessionRecord } from '../../domain/session';
import type { SealedValue } from './secret-box';

/** One workspace's configuration overrides, sealed whole as the instance configuration is. */
export interface WorkspaceConfig {
  workspaceId: string;
  config: SealedValue;
}

/**
 * What one store transaction may read and write: the plugin records and the catalog state
 * that every change to them moves, so a change and the catalog revision it causes commit
 * together or not at all; and the sessions a profile's existence is checked against, so a
 * session's start and a profile's deletion never cross.
 */
export interface StoreTransaction {
  /** Every plugin record, ordered by `install_seq`. */
  listPlugins(): Promise<PluginRecord[]>;
  /** The record for `id`, or undefined. */
  getPlugin(id: string): Promise<PluginRecord | undefined>;
  /** Inserts or replaces the record with the same id. */
  savePlugin(record: PluginRecord): Promise<void>;
  /**
   * Removes the record together with everything kept for that plugin id: its configuration
   * (workspace overrides included), scope, state entries and secrets (every scope). Removing an unknown id does nothing.
   */
  deletePlugin(id: string): Promise<void>;
  /** The plugin's sealed configuration, or undefined when none was ever saved. */
  getConfig(pluginId: string): Promise<SealedValue | undefined>;
  /** Saves (replaces) the plugin's sealed configuration; call it for a plugin whose record exists. */
  saveConfig(pluginId: string, config: SealedValue): Promise<void>;
  /** The sealed overrides of `workspaceId` (docs/catalog-and-sessions.md, "Per-workspace configuration"), or undefined. */
  getWorkspaceConfig(pluginId: string, workspaceId: string): Promise<SealedValue | undefined>;
  /** Replaces the workspace's sealed overrides; null removes them. Call it for a plugin whose record exists. */
  saveWorkspaceConfig(pluginId: string, workspaceId: string, config: SealedValue | null): Promise<void>;
  /** Every workspace of the plugin that has overrides, in workspace id byte order. */
  listWorkspaceConfigs(pluginId: string): Promise<WorkspaceConfig[]>;
  /** The next value for `install_seq`: greater than every one handed out before. */
  nextInstallSeq(): Promise<number>;
  /** The stored catalog state, or undefined before the first generation was opened. */
  catalogState(): Promise<CatalogState | undefined>;
  saveCatalogState(state: CatalogState): Promise<void>;
  /** Every stored scope and profile (docs/catalog-and-sessions.md, "Scopes"), `default` included. */
  catalogPolicy(): Promise<CatalogPolicy>;
  /** Stores the plugin's scope, normalised; the default scope removes the stored one. */
  savePluginScope(pluginId: string, scope: PluginScope): Promise<void>;
  /** Creates or replaces the profile, normalised. */
  saveProfile(profile: Profile): Promise<void>;
  /** Removes the profile; an unknown name does nothing (`default` then reads as its default). */
  deleteProfile(name: string): Promise<void>;
  /** The approval rules (docs/approvals.md), in order; `[]` until some are saved. */
  approvalRules(): Promise<ApprovalRule[]>;
  /** Replaces the approval rules; they move no catalog revision. */
  saveApprovalRules(rules: readonly ApprovalRule[]): Promise<void>;
  /** Inserts or replaces the session with the same id (as SessionStore.saveSession), committed with the transaction. */
  saveSession(session: SessionRecord): Promise<void>;
  /** The ids of the sessions whose profile is `name` and whose status is not `stopped`, in `created_at` order. */
  sessionsUsingProfile(name: string): Promise<string[]>;
}

/**
 * Durable plugin records (with their configuration), the catalog state and the boot counter.
 *
 * Changes to plugins run in transaction(): one at a time for the whole installation (the
 * single catalog writer), all or nothing. Reading methods outside a transaction see only
 * committed data. Every method rejects once the store is closed.
 */
export abstract class PluginRecords {
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
  /** The committed sealed configuration of the plugin, or undefined when none was saved. */
  abstract getConfig(pluginId: string): Promise<SealedValue | undefined>;

  /** The committed sealed overrides of the plugin's `workspaceId`, or undefined. */
  abstract getWorkspaceConfig(pluginId: string, workspaceId: string): Promise<SealedValue | undefined>;
  /** The committed overrides of every workspace that has some, in workspace id byte order. */
  abstract listWorkspaceConfigs(pluginId: string): Promise<WorkspaceConfig[]>;

  /** Increments the stored boot counter and returns the new value (1 on a new store). */
  abstract incrementBootCounter(): Promise<number>;

  /** Releases the underlying resource (the sessions and Host entries kept with it too); later calls reject. Idempotent. */
  abstract close(): Promise<void>;
}
