import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecord } from '../../domain/plugin-record';
import type { StoreTransaction } from '../ports/plugin-records';
import type { ReplicaRoster } from '../ports/replica-roster';
import { Replication, type CommitCopies, type ReplicaCopyView } from '../ports/replication';
import type { BackendUrl } from '../sessions/backend-url';
import { runs, type LocalCopies } from './local-copies';

/**
 * Replica mode on a store several backends share (docs/operations.md §10): the roster this
 * replica joins, and its own copies, which move the catalog.
 */
export class SharedStoreReplication extends Replication {
  private joined = false;

  constructor(
    private readonly roster: ReplicaRoster,
    private readonly copies: LocalCopies,
    /** This replica's base URL, known once its listener is up (before open()). */
    private readonly url: BackendUrl,
    /** This replica's process id, which the roster shows. */
    private readonly pid: number,
  ) {
    super();
  }

  async open(fresh: (bootCounter: number) => CatalogState): Promise<{ state: CatalogState; adopted: boolean }> {
    const { alone, state } = await this.roster.join(this.url.own(), this.pid, fresh);
    this.joined = !alone;
    return { state, adopted: !alone };
  }

  replicaId(): string {
    return this.roster.replicaId;
  }

  joinedOthers(): boolean {
    return this.joined;
  }

  async othersLive(): Promise<boolean> {
    const live = await this.roster.live().catch(() => []);
    return live.some((member) => member.id !== this.roster.replicaId);
  }

  commit(tx: StoreTransaction): CommitCopies {
    const shared = this.roster.copiesIn(tx);
    const saved = new Set<string>();
    const followed: Array<[PluginRecord, string | null]> = [];
    const watched: StoreTransaction = {
      ...tx,
      savePlugin: async (record) => {
        saved.add(record.id);
        await tx.savePlugin(record);
      },
    };
    return {
      tx: watched,
      listed: async (records) => {
        for (const record of records) {
          if (!saved.has(record.id)) continue;
          await shared.saveCopy(record.id, this.copies.copyOf(record.id, record.status));
          followed.push([record, (await tx.getConfig(record.id))?.data ?? null]);
        }
        const served = await shared.servedPlugins();
        return records.filter((record) => served.has(record.id));
      },
      // Only a committed change is one this replica's copies follow.
      committed: () => {
        for (const [record, config] of followed) this.copies.follow(record, record.status === 'active' ? runs(record, config) : null);
      },
    };
  }

  async copyMoved(tx: StoreTransaction, pluginId: string, status: 'active' | 'error'): Promise<boolean> {
    await this.roster.copiesIn(tx).saveCopy(pluginId, this.copies.copyOf(pluginId, status));
    return true;
  }

  enablingActive(pluginId: string, serving: boolean): 'touch' | 'restart' {
    // Every copy in error restarts: this one here, the others following the touched record; a healthy copy stays.
    return this.copies.statusOf(pluginId) === 'active' && serving ? 'touch' : 'restart';
  }

  /**
   * One entry per live replica, in the order they joined. A replica that has not stored a copy
   * yet shows `registered` for a desired-active plugin (it is starting it), else the record's status.
   */
  async copiesOf(records: readonly PluginRecord[]): Promise<ReadonlyMap<string, ReplicaCopyView[]>> {
    const [members, copies] = await Promise.all([this.roster.live(), this.roster.copies()]);
    const byKey = new Map(copies.map((copy) => [`${copy.replicaId}\n${copy.pluginId}`, copy]));
    return new Map(
      records.map((record) => [
        record.id,
        members.map((member): ReplicaCopyView => {
          const copy = byKey.get(`${member.id}\n${record.id}`);
          if (copy) return { id: member.id, status: copy.status, pid: copy.pid };
          return { id: member.id, status: record.status === 'active' ? 'registered' : record.status, pid: null };
        }),
      ]),
    );
  }
}
