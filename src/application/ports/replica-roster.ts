import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginStatus } from '../../domain/plugin-record';
import type { StoreTransaction } from './plugin-records';

/** One live backend of a shared store (docs/operations.md §10). */
export interface ReplicaMember {
  /** Stable for a data dir. */
  id: string;
  /** The base URL its agentctls dial. */
  url: string;
  pid: number;
}

/** What one replica's own copy of a plugin is doing. */
export interface ReplicaCopy {
  replicaId: string;
  pluginId: string;
  /** The §3 status of that replica's copy. */
  status: PluginStatus;
  /** The copy's process id, null when none runs. */
  pid: number | null;
}

/**
 * The copies part of a store transaction, on a store several replicas share. What a copy
 * does moves the catalog (a plugin's tools are listed while some live replica's copy is
 * active), so copies are written in the same transaction as the catalog they move.
 */
export interface ReplicaTransaction {
  /** Ids of the plugins that some live replica's copy serves (`active`). */
  servedPlugins(): Promise<Set<string>>;
  /** Saves this replica's copy of the plugin; `null` removes it. */
  saveCopy(pluginId: string, copy: { status: PluginStatus; pid: number | null } | null): Promise<void>;
  /** Removes every replica's copy of the plugin (it was uninstalled). */
  dropCopies(pluginId: string): Promise<void>;
  /** Removes the replicas (dead, or this one stopping) and all their copies. */
  forget(replicaIds: readonly string[]): Promise<void>;
}

/**
 * The live replicas of a shared store: each one registers when it starts, heartbeats while it
 * serves and deregisters when it stops; one silent for `ReplicaRoster.GONE_AFTER_MS` is gone.
 * Every method rejects when the store cannot be reached.
 */
export abstract class ReplicaRoster {
  /** A replica that sent no heartbeat for this long counts as gone. */
  static readonly GONE_AFTER_MS = 8000;
  /** How often a live replica heartbeats. */
  static readonly HEARTBEAT_MS = 1000;

  /** This replica's id (stable for its data dir). */
  abstract readonly replicaId: string;

  /**
   * Registers this replica, serialised with every store transaction. When no other replica is
   * live this is a cluster start: `open` is called with the incremented boot counter and its
   * state is stored; otherwise the stored catalog state is kept. Resolves the state in force.
   * `pid` is this replica's process id, shown to operators.
   */
  abstract join(url: string, pid: number, open: (bootCounter: number) => CatalogState): Promise<{ alone: boolean; state: CatalogState }>;

  /**
   * Records that this replica is alive. Resolves the ids of replicas that went silent, and
   * whether this one had itself been counted gone (its copies were dropped: save them again).
   */
  abstract heartbeat(): Promise<{ silent: string[]; rejoined: boolean }>;

  /** The live replicas, this one included, oldest first. */
  abstract live(): Promise<ReplicaMember[]>;

  /** Every live replica's copies. */
  abstract copies(): Promise<ReplicaCopy[]>;

  /** The copies part of `tx`, a transaction of the store this roster shares (anything else is refused). */
  abstract copiesIn(tx: StoreTransaction): ReplicaTransaction;
}
