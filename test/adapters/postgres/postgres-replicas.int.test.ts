import { PostgresPluginStore } from '../../../src/adapters/postgres/postgres-plugin-store';
import { PostgresPackageVault } from '../../../src/adapters/postgres/postgres-package-vault';
import { PostgresReplicaRoster } from '../../../src/adapters/postgres/postgres-replica-roster';
import { PostgresStoreChanges } from '../../../src/adapters/postgres/postgres-store-changes';
import { initialCatalogState, formatGeneration } from '../../../src/domain/catalog-revisions';
import { join } from 'node:path';
import { CapturingLogger } from '../../support/capturing-logger';
import { CuttingRelay } from '../../support/postgres/cutting-relay';
import { eventually } from '../../support/eventually';
import { pluginRecordFixture } from '../../support/fixtures';
import { runSql } from '../../support/postgres/run-sql';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useStoreDatabase } from '../../support/postgres/use-store-database';

const postgres = usePrivatePostgres();

describe('PostgreSQL replica parts: roster, copies, package vault, change feed', () => {
  const db = useStoreDatabase(postgres, 'replicas');
  const opened: PostgresStoreChanges[] = [];
  afterEach(async () => {
    for (const changes of opened.splice(0)) await changes.close();
  });

  const open = (id: string) => (counter: number) => initialCatalogState(formatGeneration(counter, id === 'r-a' ? 'aaaaaaaa' : 'bbbbbbbb'));
  const sql = (text: string, values: unknown[] = []) => runSql(db.config(), text, values);

  it('opens a generation only at a cluster start: a replica joining a live one adopts the stored catalog', async () => {
    const [storeA, storeB] = [await db.open({ replicaId: 'r-a' }), await db.open({ replicaId: 'r-b' })];
    const a = new PostgresReplicaRoster(storeA.pool, 'r-a');
    const b = new PostgresReplicaRoster(storeB.pool, 'r-b');
    const first = await a.join('http://127.0.0.1:1', 11, open('r-a'));
    expect(first).toEqual({ alone: true, state: initialCatalogState('000000000001-aaaaaaaa') });
    await storeA.transaction(async (tx) => tx.saveCatalogState({ ...first.state, revision: 5 }));
    expect(await b.join('http://127.0.0.1:2', 22, open('r-b'))).toEqual({ alone: false, state: { ...first.state, revision: 5 } });
    expect(await a.live()).toEqual([
      { id: 'r-a', url: 'http://127.0.0.1:1', pid: 11 },
      { id: 'r-b', url: 'http://127.0.0.1:2', pid: 22 },
    ]);

    // A silent for longer than the limit is gone: B's heartbeat names it, and the next start alone opens generation 2.
    await sql("UPDATE replicas SET heartbeat_at = now() - interval '20 seconds' WHERE id = 'r-a'");
    expect(await b.heartbeat()).toEqual({ silent: ['r-a'], rejoined: false });
    expect((await b.live()).map((member) => member.id)).toEqual(['r-b']);
    await sql("UPDATE replicas SET heartbeat_at = now() - interval '20 seconds'");
    expect(await a.join('http://127.0.0.1:1', 11, open('r-a'))).toMatchObject({ alone: true, state: { generation: '000000000002-aaaaaaaa', revision: 1 } });
  });

  it('keeps each replica’s copies; only live replicas’ active copies serve, and forgetting a replica drops its copies', async () => {
    const [storeA, storeB] = [await db.open({ replicaId: 'r-a' }), await db.open({ replicaId: 'r-b' })];
    const a = new PostgresReplicaRoster(storeA.pool, 'r-a');
    await a.join('http://a', 1, open('r-a'));
    await new PostgresReplicaRoster(storeB.pool, 'r-b').join('http://b', 2, open('r-b'));
    await storeA.transaction(async (tx) => {
      await tx.savePlugin(pluginRecordFixture({ id: 'p.one' }));
      await tx.replicas!.saveCopy('p.one', { status: 'error', pid: null });
    });
    await storeB.transaction(async (tx) => tx.replicas!.saveCopy('p.one', { status: 'active', pid: 4242 }));
    expect(await storeA.transaction(async (tx) => [...(await tx.replicas!.servedPlugins())])).toEqual(['p.one']);
    expect(await a.copies()).toEqual([
      { replicaId: 'r-a', pluginId: 'p.one', status: 'error', pid: null },
      { replicaId: 'r-b', pluginId: 'p.one', status: 'active', pid: 4242 },
    ]);

    await sql("UPDATE replicas SET heartbeat_at = now() - interval '20 seconds' WHERE id = 'r-b'");
    expect(await storeA.transaction(async (tx) => [...(await tx.replicas!.servedPlugins())])).toEqual([]);
    await storeA.transaction(async (tx) => tx.replicas!.forget(['r-b']));
    expect(await sql('SELECT replica_id FROM replica_copies')).toEqual([{ replica_id: 'r-a' }]);
    // Uninstalling removes every replica's copy with the record.
    await storeA.transaction(async (tx) => tx.deletePlugin('p.one'));
    expect(await sql('SELECT count(*)::int AS n FROM replica_copies')).toEqual([{ n: 0 }]);
  });

  it('survives its connections being cut mid-heartbeat: the heartbeats under way fail, the next ones work', async () => {
    const relay = await CuttingRelay.start(join(postgres().root, `.s.PGSQL.${postgres().port}`));
    let store: PostgresPluginStore | undefined;
    try {
      const connection = { host: '127.0.0.1', port: relay.port, user: 'postgres', password: postgres().password, database: db.name() };
      store = await PostgresPluginStore.open({ connection, poolSize: 8, replicaId: 'r-a' });
      const roster = new PostgresReplicaRoster(store.pool, 'r-a');
      await roster.join('http://a', 1, open('r-a'));
      // Several heartbeats hold checked-out connections while every connection is cut.
      const beats = Array.from({ length: 8 }, () => roster.heartbeat());
      relay.cut();
      await Promise.allSettled(beats);
      expect(
        await eventually(async () => (await roster.heartbeat().catch(() => undefined))?.rejoined === false, 5000, 'a heartbeat after the cut', { everyMs: 50 }),
      ).toBe(true);
    } finally {
      await store?.close();
      await relay.stop();
    }
  });

  it('keeps package bytes by digest and prunes those no record names', async () => {
    const store = await db.open({ replicaId: 'r-a' });
    const vault = new PostgresPackageVault(store.pool);
    const kept = pluginRecordFixture({ id: 'p.kept' });
    await store.transaction(async (tx) => tx.savePlugin(kept));
    const bytes = Buffer.from([0x1f, 0x8b, 0, 1, 2, 255]);
    await vault.keep({ sha256: kept.package_sha256, pluginId: kept.id, version: kept.version }, bytes);
    await vault.keep({ sha256: 'f'.repeat(64), pluginId: 'p.gone', version: '1.0.0' }, Buffer.from('x'));
    expect(await vault.fetch(kept.package_sha256)).toEqual(bytes);
    await vault.prune();
    expect(await vault.fetch('f'.repeat(64))).toBeUndefined();
    expect(await vault.fetch(kept.package_sha256)).toEqual(bytes);
  });

  it('answers whether a keep stored the bytes, and forgets one digest unless a record names it', async () => {
    const store = await db.open({ replicaId: 'r-a' });
    const vault = new PostgresPackageVault(store.pool);
    const named = pluginRecordFixture({ id: 'p.named' });
    await store.transaction(async (tx) => tx.savePlugin(named));
    const failed = { sha256: 'e'.repeat(64), pluginId: 'p.failed', version: '1.0.0' };
    const other = { sha256: 'd'.repeat(64), pluginId: 'p.other', version: '1.0.0' };
    expect(await vault.keep(failed, Buffer.from('failed'))).toBe(true);
    expect(await vault.keep(failed, Buffer.from('failed'))).toBe(false);
    expect(await vault.keep(other, Buffer.from('other'))).toBe(true);
    expect(await vault.keep({ sha256: named.package_sha256, pluginId: named.id, version: named.version }, Buffer.from('named'))).toBe(true);

    await vault.forget(failed.sha256);
    await vault.forget(named.package_sha256);
    expect(await vault.fetch(failed.sha256)).toBeUndefined();
    expect(await vault.fetch(other.sha256)).toEqual(Buffer.from('other'));
    expect(await vault.fetch(named.package_sha256)).toEqual(Buffer.from('named'));
  });

  it('hears another replica’s committed change (not its own, nor a rolled back one), and reads again after its connection is cut', async () => {
    const [storeA, storeB] = [await db.open({ replicaId: 'r-a' }), await db.open({ replicaId: 'r-b' })];
    const changes = new PostgresStoreChanges(db.config(), 'r-a', new CapturingLogger());
    opened.push(changes);
    let heard = 0;
    changes.onChange(() => (heard += 1));
    await changes.start();

    await storeA.transaction(async (tx) => tx.savePlugin(pluginRecordFixture({ id: 'p.mine' })));
    await expect(
      storeB.transaction(async (tx) => {
        await tx.savePlugin(pluginRecordFixture({ id: 'p.undone' }));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await storeB.transaction(async (tx) => tx.listPlugins());
    await storeB.transaction(async (tx) => tx.savePlugin(pluginRecordFixture({ id: 'p.theirs' })));
    await eventually(() => heard === 1, 5000, 'the committed change');
    // A notification sent after its own and B's read-only ones: had those notified, they would have arrived first.
    expect(heard).toBe(1);

    await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'toolport-changes' AND datname = $1", [db.name()]);
    await eventually(() => heard === 2, 5000, 'a catch-up read after the reconnect');
    await storeB.transaction(async (tx) => tx.deletePlugin('p.theirs'));
    await eventually(() => heard === 3, 5000, 'a change heard on the new connection');
  });
});
