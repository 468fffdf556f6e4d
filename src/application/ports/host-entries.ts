import type { EntryOwner } from '../../domain/host-entry-owner';
import type { SealedValue } from './secret-box';

/**
 * What putState / putSecret did: `stored`; `limit_reached` when the key is new and the
 * owner already holds `maxKeys` keys of that kind (nothing written); `no_plugin` when no
 * record with the owner's plugin id exists (it is being uninstalled; nothing written).
 */
export type HostEntryWrite = 'stored' | 'limit_reached' | 'no_plugin';

/**
 * The Host API's entries (docs/plugin-protocol.md §13): each owner's state and secrets, an
 * owner being a plugin's instance, one of its workspaces or one of its tasks (EntryOwner):
 * owners never see each other's keys, and each counts its own. Keys
 * are compared, ordered and matched by their bytes (binary collation; valid keys are ASCII).
 * The caller checks key and value rules; the store enforces only the key count, atomically
 * with the write. Each call is atomic on its own and never waits for a transaction to be more
 * than queued behind it. An uninstall removes a plugin's entries (every scope) with its record.
 */
export abstract class HostEntries {
  /** The JSON text stored under `key`, exactly as it was put, or undefined. */
  abstract getState(owner: EntryOwner, key: string): Promise<string | undefined>;
  /**
   * Inserts or replaces `key`. Replacing an existing key is always allowed; a new key only
   * while the owner holds fewer than `maxKeys` state keys. See HostEntryWrite.
   */
  abstract putState(owner: EntryOwner, key: string, valueJson: string, maxKeys: number): Promise<HostEntryWrite>;
  /** Removes `key`; resolves whether it existed. */
  abstract deleteState(owner: EntryOwner, key: string): Promise<boolean>;
  /**
   * The owner's state keys that start with `prefix` and sort strictly after `after` (when
   * given), in byte order, at most `limit` of them (limit ≥ 1).
   */
  abstract listStateKeys(owner: EntryOwner, prefix: string, after: string | undefined, limit: number): Promise<string[]>;

  /** The sealed plugin secret stored under `key`, or undefined. */
  abstract getSecret(owner: EntryOwner, key: string): Promise<SealedValue | undefined>;
  /** As putState, for the owner's secrets (counted apart from its state keys). */
  abstract putSecret(owner: EntryOwner, key: string, value: SealedValue, maxKeys: number): Promise<HostEntryWrite>;
  /** Removes the secret under `key`; resolves whether it existed. */
  abstract deleteSecret(owner: EntryOwner, key: string): Promise<boolean>;
}
