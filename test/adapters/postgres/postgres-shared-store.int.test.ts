import { PostgresPluginStore } from '../../../src/adapters/postgres/postgres-plugin-store';
import { assertNamesFree } from '../../../src/application/plugins/assert-names-free';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { eventually } from '../../support/eventually';
import { manifestFixture, pluginRecordFixture } from '../../support/fixtures';
import { runSql } from '../../support/postgres/run-sql';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useStoreDatabase } from '../../support/postgres/use-store-database';
import { instanceOwner } from '../../../src/domain/host-entry-owner';

const postgres = usePrivatePostgres();

/** A promise and the function that resolves it, to hold a transaction open. */
function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('PostgresPluginStore shared by several backends on one database', () => {
  const db = useStoreDatabase(postgres, 'shared');
  const openStore = () => db.open();

  /** Connections of this database waiting for an advisory lock: a transaction queued behind another backend's. */
  async function waitingOnTheLock(): Promise<number> {
    const [row] = await runSql<{ n: number }>(
      postgres().socketConfig(),
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
      [db.name()],
    );
    return row.n;
  }

  it('holds one backend’s transaction until the other’s commits, so of two colliding names exactly one commits', async () => {
    const [first, second] = [await openStore(), await openStore()];
    const read = gate();
    const hold = gate();
    const began: string[] = [];
    /** Claims the exposed name kandev_a_b_run for `id` if no stored plugin has it, as install does. */
    const claim = (store: PostgresPluginStore, id: string, beforeWrite: () => Promise<void>) =>
      store.transaction(async (tx) => {
        began.push(id);
        const manifest = manifestFixture(id, '1.0.0', ['run']);
        assertNamesFree({ id, manifest }, await tx.listPlugins(), 'kandev');
        await beforeWrite();
        await tx.savePlugin(pluginRecordFixture({ id, manifest, install_seq: await tx.nextInstallSeq() }));
      });

    const winner = claim(first, 'a.b', async () => {
      read.open();
      await hold.opened;
    });
    await read.opened;
    const loser = claim(second, 'a-b', async () => undefined);
    await eventually(async () => (await waitingOnTheLock()) === 1, 5000, 'the second backend to wait on the lock');
    expect(began).toEqual(['a.b']);

    hold.open();
    await winner;
    await expect(loser).rejects.toMatchObject({ code: 'NAME_COLLISION' });
    expect(began).toEqual(['a.b', 'a-b']);
    expect((await second.listPlugins()).map((r) => r.id)).toEqual(['a.b']);
  });

  it('raises the catalog revision by exactly one per transaction, whichever backend runs it', async () => {
    const stores = [await openStore(), await openStore()];
    await stores[0].transaction((tx) => tx.saveCatalogState({ generation: '000000000001-00000000', revision: 0, contentHash: 'h' }));
    const bumps = Array.from({ length: 20 }, (_, i) =>
      stores[i % 2].transaction(async (tx) => {
        const state = (await tx.catalogState())!;
        await tx.saveCatalogState({ ...state, revision: state.revision + 1 });
        return state.revision + 1;
      }),
    );
    const revisions = await Promise.all(bumps);
    expect([...revisions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await stores[1].transaction((tx) => tx.catalogState()))?.revision).toBe(20);
  });

  it('shares one boot counter and one install sequence between backends', async () => {
    const [a, b] = [await openStore(), await openStore()];
    expect([await a.incrementBootCounter(), await b.incrementBootCounter(), await a.incrementBootCounter()]).toEqual([1, 2, 3]);
    const seqs = await Promise.all([a, b, a, b].map((store) => store.transaction((tx) => tx.nextInstallSeq())));
    expect(new Set(seqs).size).toBe(4);
  });

  it('counts a plugin’s Host keys across backends: of many new keys written at once at the limit, only what fits is stored', async () => {
    const stores = [await openStore(), await openStore()];
    await stores[0].transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: 'a', install_seq: 1 })));
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 2].putState(instanceOwner('a'), `k${i}`, String(i), 5)));
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'limit_reached')).toHaveLength(7);
    expect(await stores[1].listStateKeys(instanceOwner('a'), '', undefined, 100)).toHaveLength(5);
  });

  it('leaves no Host entry behind when an uninstall on one backend races writes on another', async () => {
    const [writer, remover] = [await openStore(), await openStore()];
    await writer.transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: 'a', install_seq: 1 })));
    const writes = Array.from({ length: 20 }, (_, i) =>
      i % 2 ? writer.putSecret(instanceOwner('a'), `s${i}`, { keyId: 'k', data: 'x' }, 100) : writer.putState(instanceOwner('a'), `k${i}`, '1', 100),
    );
    const uninstall = remover.transaction((tx) => tx.deletePlugin('a'));
    const outcomes = await Promise.all(writes);
    await uninstall;
    expect(outcomes.every((o) => o === 'stored' || o === 'no_plugin')).toBe(true);
    await writer.transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: 'a', install_seq: 2 })));
    expect(await writer.listStateKeys(instanceOwner('a'), '', undefined, 100)).toEqual([]);
    for (let i = 1; i < 20; i += 2) expect(await writer.getSecret(instanceOwner('a'), `s${i}`)).toBeUndefined();
  });

  describe('with the install use case of two backends', () => {
    const harnesses: BackendHarness[] = [];

    afterEach(async () => {
      for (const harness of harnesses.splice(0)) await harness.shutdown();
    });

    it('installs exactly one of two plugins whose exposed names collide, started at the same moment on each', async () => {
      const stores = [await openStore(), await openStore()];
      for (const store of stores) harnesses.push(await createBackendHarness({ store, liveSession: false }));
      const [a, b] = harnesses;
      const outcomes = await Promise.allSettled([
        a.install.execute({ path: a.addEchoPackage('a.b', '1.0.0', ['run']) }),
        b.install.execute({ path: b.addEchoPackage('a-b', '1.0.0', ['run']) }),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(refused.map((o) => o.reason.code)).toEqual(['NAME_COLLISION']);
      expect(await stores[1].listPlugins()).toHaveLength(1);
    });
  });
});
