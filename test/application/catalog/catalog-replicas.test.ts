import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { CryptoIdGenerator } from '../../../src/adapters/system/crypto-id-generator';
import { CatalogService } from '../../../src/application/catalog/catalog-service';
import { RunningPlugins } from '../../../src/application/plugins/running-plugins';
import type { StoreTransaction } from '../../../src/application/ports/plugin-records';
import type { PluginStore } from '../../../src/application/ports/plugin-store';
import { ReplicaRoster, type ReplicaCopy, type ReplicaMember, type ReplicaTransaction } from '../../../src/application/ports/replica-roster';
import { LocalCopies } from '../../../src/application/replicas/local-copies';
import { SharedStoreReplication } from '../../../src/application/replicas/shared-store-replication';
import { BackendUrl } from '../../../src/application/sessions/backend-url';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import type { CatalogState } from '../../../src/domain/catalog-revisions';
import type { PluginStatus } from '../../../src/domain/plugin-record';
import { CapturingLogger } from '../../support/capturing-logger';
import { pluginRecordFixture } from '../../support/fixtures';

/** A transaction of the shared store: the copies part beside the port's. */
type SharedTransaction = StoreTransaction & { replicas: ReplicaTransaction };

/** One store several replicas share, in memory: records in an InMemoryPluginStore, copies and live replicas beside them. */
class SharedStore {
  readonly base = new InMemoryPluginStore();
  readonly copies = new Map<string, Map<string, { status: PluginStatus; pid: number | null }>>();
  readonly live = new Set<string>();
  boots = 0;

  /** The store as replica `id` sees it: every transaction carries the copies part. */
  storeFor(id: string): PluginStore {
    const base = this.base;
    return new Proxy(base, {
      get: (target, property) => {
        if (property === 'transaction') return <T>(work: (tx: StoreTransaction) => Promise<T>) => target.transaction((tx) => work(this.withReplicas(tx, id)));
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private withReplicas(tx: StoreTransaction, id: string): SharedTransaction {
    const replicas: ReplicaTransaction = {
      servedPlugins: async () =>
        new Set(
          [...this.copies]
            .filter(([replica]) => this.live.has(replica))
            .flatMap(([, copies]) => [...copies].filter(([, c]) => c.status === 'active').map(([plugin]) => plugin)),
        ),
      saveCopy: async (pluginId, copy) => {
        const mine = this.copies.get(id) ?? new Map();
        if (copy) mine.set(pluginId, copy);
        else mine.delete(pluginId);
        this.copies.set(id, mine);
      },
      dropCopies: async (pluginId) => {
        for (const copies of this.copies.values()) copies.delete(pluginId);
      },
      forget: async (ids) => {
        for (const gone of ids) {
          this.live.delete(gone);
          this.copies.delete(gone);
        }
      },
    };
    return {
      listPlugins: () => tx.listPlugins(),
      getPlugin: (pluginId) => tx.getPlugin(pluginId),
      savePlugin: (record) => tx.savePlugin(record),
      deletePlugin: (pluginId) => tx.deletePlugin(pluginId),
      getConfig: (pluginId) => tx.getConfig(pluginId),
      saveConfig: (pluginId, config) => tx.saveConfig(pluginId, config),
      getWorkspaceConfig: (pluginId, workspaceId) => tx.getWorkspaceConfig(pluginId, workspaceId),
      saveWorkspaceConfig: (pluginId, workspaceId, config) => tx.saveWorkspaceConfig(pluginId, workspaceId, config),
      listWorkspaceConfigs: (pluginId) => tx.listWorkspaceConfigs(pluginId),
      nextInstallSeq: () => tx.nextInstallSeq(),
      catalogState: () => tx.catalogState(),
      saveCatalogState: (state) => tx.saveCatalogState(state),
      catalogPolicy: () => tx.catalogPolicy(),
      savePluginScope: (pluginId, scope) => tx.savePluginScope(pluginId, scope),
      saveProfile: (profile) => tx.saveProfile(profile),
      deleteProfile: (name) => tx.deleteProfile(name),
      approvalRules: () => tx.approvalRules(),
      saveApprovalRules: (rules) => tx.saveApprovalRules(rules),
      saveSession: (session) => tx.saveSession(session),
      sessionsUsingProfile: (name) => tx.sessionsUsingProfile(name),
      replicas,
    };
  }
}

class SharedRoster extends ReplicaRoster {
  constructor(
    private readonly shared: SharedStore,
    readonly replicaId: string,
  ) {
    super();
  }

  override async join(_url: string, _pid: number, open: (bootCounter: number) => CatalogState): Promise<{ alone: boolean; state: CatalogState }> {
    const alone = this.shared.live.size === 0;
    this.shared.live.add(this.replicaId);
    if (!alone) return { alone, state: (await this.shared.base.transaction((tx) => tx.catalogState()))! };
    const state = open(++this.shared.boots);
    await this.shared.base.transaction((tx) => tx.saveCatalogState(state));
    return { alone, state };
  }

  override async heartbeat(): Promise<{ silent: string[]; rejoined: boolean }> {
    return { silent: [], rejoined: false };
  }

  override async live(): Promise<ReplicaMember[]> {
    return [...this.shared.live].map((id) => ({ id, url: `http://${id}`, pid: 1 }));
  }

  override async copies(): Promise<ReplicaCopy[]> {
    return [];
  }

  override copiesIn(tx: StoreTransaction): ReplicaTransaction {
    return (tx as SharedTransaction).replicas;
  }
}

describe('CatalogService on a store replicas share (docs/operations.md §10)', () => {
  const shared = () => new SharedStore();
  const replications = new Map<CatalogService, SharedStoreReplication>();
  const replica = (store: SharedStore, id: string) => {
    const url = new BackendUrl();
    url.set(`http://${id}`);
    const replication = new SharedStoreReplication(new SharedRoster(store, id), new LocalCopies(new RunningPlugins()), url, 4242);
    const catalog = new CatalogService(store.storeFor(id), new CryptoIdGenerator(), DEFAULT_SETTINGS, new CapturingLogger(), replication);
    replications.set(catalog, replication);
    return catalog;
  };
  const tools = (catalog: CatalogService) => catalog.current().tools.map((tool) => tool.exposed_name);
  const setCopy = (catalog: CatalogService, pluginId: string, status: PluginStatus) =>
    catalog.commit(async (tx) => (tx as SharedTransaction).replicas.saveCopy(pluginId, { status, pid: status === 'active' ? 7 : null }));

  it('opens a generation at a cluster start only; a joining replica takes the stored generation, revision and tools', async () => {
    const store = shared();
    const a = replica(store, 'r-a');
    const first = await a.open();
    expect(first).toMatchObject({ generation: expect.stringMatching(/^000000000001-/), revision: 1 });
    await a.commit(async (tx) => tx.savePlugin(pluginRecordFixture({ id: 'p.one' })));
    const b = replica(store, 'r-b');
    expect(await b.open()).toEqual(a.current());
    expect(replications.get(b)?.joinedOthers()).toBe(true);
    expect(replications.get(a)?.joinedOthers()).toBe(false);
    expect(tools(b)).toEqual(tools(a));
    expect(tools(a)).not.toEqual([]);
  });

  it('lists a desired-active plugin while some live copy is active: one revision when the last copy goes, none while another serves', async () => {
    const store = shared();
    const a = replica(store, 'r-a');
    await a.open();
    const b = replica(store, 'r-b');
    // The receiving replica's change saves its own copy with the record: the tools are listed.
    await a.commit(async (tx) => tx.savePlugin(pluginRecordFixture({ id: 'p.one' })));
    await b.open();
    expect(store.copies.get('r-a')?.get('p.one')).toEqual({ status: 'active', pid: null });
    const listed = a.current();
    expect(listed.revision).toBe(2);

    await setCopy(b, 'p.one', 'active');
    await setCopy(a, 'p.one', 'error');
    expect(a.current().revision).toBe(listed.revision);
    await setCopy(b, 'p.one', 'error');
    expect(b.current()).toMatchObject({ revision: listed.revision + 1, tools: [] });
    // A learns of it on its next read of the store (what a notification triggers).
    await a.recompute();
    expect(a.current()).toEqual(b.current());

    // A dead replica's active copy does not count.
    await setCopy(b, 'p.one', 'active');
    expect(tools(b)).not.toEqual([]);
    store.live.delete('r-b');
    await a.recompute();
    expect(a.current()).toMatchObject({ revision: listed.revision + 3, tools: [] });
  });
});
