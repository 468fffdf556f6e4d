import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { StoreTransaction } from './plugin-records';

/** One live replica's copy of a plugin, as the operator API shows it (docs/operations.md §10). */
export interface ReplicaCopyView {
  id: string;
  status: PluginStatus;
  pid: number | null;
}

/** What replica mode adds to one catalog commit. */
export interface CommitCopies {
  /** The transaction as the commit's work sees it (on a shared store, the records it saves are noted). */
  readonly tx: StoreTransaction;
  /**
   * After the work, in the same transaction: stores this replica's copy of each record the work
   * saved and answers the records whose tools the catalog lists (those some live replica serves;
   * a backend alone lists them all).
   */
  listed(records: PluginRecord[]): Promise<PluginRecord[]>;
  /** Once committed: this replica's copies follow what it committed. */
  committed(): void;
}

/**
 * Whether and how this backend shares its store with other replicas (docs/operations.md §10).
 * A backend alone binds the null object (`SoleBackend`: every answer is the one-backend one),
 * so no use case asks which mode it runs in.
 */
export abstract class Replication {
  /**
   * Opens this start's catalog state: a backend alone, or the first replica of a cluster
   * start, stores `fresh(bootCounter)` with the incremented boot counter; a replica joining
   * live ones adopts the stored state (`adopted`).
   */
  abstract open(fresh: (bootCounter: number) => CatalogState): Promise<{ state: CatalogState; adopted: boolean }>;
  /** This replica's id on a shared store, which sessions name as their agentctl's follower; null for a backend alone. */
  abstract replicaId(): string | null;
  /** Whether this start joined live replicas (it then leaves their sessions and records to them). */
  abstract joinedOthers(): boolean;
  /** Whether another replica is live now (a stopping one then leaves its agentctls to it). */
  abstract othersLive(): Promise<boolean>;
  /** The replica-mode part of one catalog commit over `tx`. */
  abstract commit(tx: StoreTransaction): CommitCopies;
  /**
   * A crash or recovery of the plugin's serving process. On a shared store it moves this
   * replica's copy only (stored in `tx`; answers true); alone it answers false, and the record moves.
   */
  abstract copyMoved(tx: StoreTransaction, pluginId: string, status: 'active' | 'error'): Promise<boolean>;
  /**
   * What enabling an already active, enabled plugin does: alone, nothing (`unchanged`); on a
   * shared store, a copy serving here gets the record `touch`ed (so every copy in error
   * restarts), one that does not is restarted here (`restart`).
   */
  abstract enablingActive(pluginId: string, serving: boolean): 'unchanged' | 'touch' | 'restart';
  /** Each record's copies on the live replicas, by plugin id; alone, none (the answer has no `replicas`). */
  abstract copiesOf(records: readonly PluginRecord[]): Promise<ReadonlyMap<string, ReplicaCopyView[]>>;
}
