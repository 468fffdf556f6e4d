import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecords, StoreTransaction } from '../ports/plugin-records';
import { Replication, type CommitCopies, type ReplicaCopyView } from '../ports/replication';

/** Replica mode's null object: one backend on a store of its own (docs/operations.md §10 does not apply). */
export class SoleBackend extends Replication {
  constructor(private readonly records: PluginRecords) {
    super();
  }

  async open(fresh: (bootCounter: number) => CatalogState): Promise<{ state: CatalogState; adopted: boolean }> {
    const state = fresh(await this.records.incrementBootCounter());
    await this.records.transaction((tx) => tx.saveCatalogState(state));
    return { state, adopted: false };
  }

  replicaId(): null {
    return null;
  }

  joinedOthers(): boolean {
    return false;
  }

  async othersLive(): Promise<boolean> {
    return false;
  }

  commit(tx: StoreTransaction): CommitCopies {
    return { tx, listed: async (records) => records, committed: () => undefined };
  }

  async copyMoved(): Promise<boolean> {
    return false;
  }

  enablingActive(): 'unchanged' {
    return 'unchanged';
  }

  async copiesOf(): Promise<ReadonlyMap<string, ReplicaCopyView[]>> {
    return new Map<string, ReplicaCopyView[]>();
  }
}
