import type { PluginStore } from '../../src/application/ports/plugin-store';
import type { PluginRecord } from '../../src/domain/plugin-record';
import { manifestFixture, pluginRecordFixture, sessionRecordFixture, toolFixture } from '../support/fixtures';

/** One adapter under test: a fresh, empty store and how to dispose of it. */
export interface StoreUnderTest {
  store: PluginStore;
  /** Disposes of the store; must tolerate a store the test already closed. */
  cleanup(): void | Promise<void>;
  /**
   * Optional: closes the store and opens another one on the same underlying resource, for
   * adapters whose data survives a restart (SQLite). The suite then checks durability too.
   * cleanup() must then dispose of the reopened store as well.
   */
  reopen?(): Promise<PluginStore>;
}

export type StoreFactory = () => StoreUnderTest | Promise<StoreUnderTest>;

const CATALOG = { generation: '000000000003-0badcafe', revision: 7, contentHash: 'a'.repeat(64) };

function save(store: PluginStore, record: PluginRecord): Promise<void> {
  return store.transaction((tx) => tx.savePlugin(record));
}

function nextSeq(store: PluginStore): Promise<number> {
  return store.transaction((tx) => tx.nextInstallSeq());
}

/** A promise and the function that resolves it, to hold a transaction open. */
function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * The PluginStore contract. A test file runs it over every adapter:
 * `describePluginStoreContract([['in-memory', () => ({ store: new InMemoryPluginStore(), cleanup() {} })]])`.
 */
export function describePluginStoreContract(rows: Array<[string, StoreFactory]>): void {
  describe.each(rows)('PluginStore contract: %s', (_name, factory) => {
    let subject: StoreUnderTest;
    let store: PluginStore;

    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    it('starts empty', async () => {
      expect(await store.listPlugins()).toEqual([]);
      expect(await store.listSessions()).toEqual([]);
      expect(await store.getPlugin('nope')).toBeUndefined();
      expect(await store.getSession('nope')).toBeUndefined();
      expect(await store.findSessionByTokenHash('nope')).toBeUndefined();
      expect(await store.transaction((tx) => tx.catalogState())).toBeUndefined();
    });

    it('saves and gets a plugin record exactly as given, manifest JSON and nulls included', async () => {
      const manifest = manifestFixture('acme.tools', '1.2.0-beta.1', ['add_tag'], {
        display_name: 'Acme tools',
        capabilities: { network: { hosts: ['example.com'] }, flags: [true, null, 1.5] },
        agent_tools: [
          toolFixture('add_tag', {
            title: 'Add tag ✓',
            output_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            annotations: { read_only_hint: true, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
          }),
        ],
      });
      const record = pluginRecordFixture({ id: 'acme.tools', version: '1.2.0-beta.1', manifest, last_error: null, install_seq: await nextSeq(store) });
      await save(store, record);
      expect(await store.getPlugin('acme.tools')).toEqual(record);
      expect((await store.getPlugin('acme.tools'))?.last_error).toBeNull();
      expect(await store.transaction((tx) => tx.getPlugin('acme.tools'))).toEqual(record);
    });

    it('returns copies: mutating what it returned changes nothing stored', async () => {
      const record = pluginRecordFixture({ id: 'a', install_seq: await nextSeq(store) });
      await save(store, record);
      const got = (await store.getPlugin('a'))!;
      got.status = 'error';
      got.manifest.agent_tools[0]!.name = 'changed';
      record.status = 'disabled';
      expect((await store.getPlugin('a'))?.status).toBe('active');
      expect((await store.getPlugin('a'))?.manifest.agent_tools[0]?.name).toBe('run');
    });

    it('replaces the record with the same id on save', async () => {
      const seq = await nextSeq(store);
      await save(store, pluginRecordFixture({ id: 'a', install_seq: seq }));
      const replaced = pluginRecordFixture({
        id: 'a',
        version: '2.0.0',
        status: 'error',
        enabled: false,
        last_error: 'exited with code 1',
        restart_count: 3,
        install_seq: seq,
        updated_at: '2026-02-02T00:00:00.000Z',
      });
      await save(store, replaced);
      expect(await store.listPlugins()).toEqual([replaced]);
      expect(await store.getPlugin('a')).toEqual(replaced);
    });

    it('lists plugins ordered by install_seq, whatever the save order', async () => {
      const [first, second, third] = [await nextSeq(store), await nextSeq(store), await nextSeq(store)];
      await save(store, pluginRecordFixture({ id: 'c', install_seq: third }));
      await save(store, pluginRecordFixture({ id: 'a', install_seq: second }));
      await save(store, pluginRecordFixture({ id: 'b', install_seq: first }));
      expect((await store.listPlugins()).map((r) => r.id)).toEqual(['b', 'a', 'c']);
    });

    it('deletes a plugin; deleting an unknown id does nothing', async () => {
      await save(store, pluginRecordFixture({ id: 'a', install_seq: await nextSeq(store) }));
      await save(store, pluginRecordFixture({ id: 'b', install_seq: await nextSeq(store) }));
      await store.transaction(async (tx) => {
        await tx.deletePlugin('a');
        await tx.deletePlugin('unknown');
      });
      expect(await store.getPlugin('a')).toBeUndefined();
      expect((await store.listPlugins()).map((r) => r.id)).toEqual(['b']);
    });

    it('hands out strictly increasing install_seq values, also after deletes', async () => {
      const seen: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const seq = await nextSeq(store);
        seen.push(seq);
        await save(store, pluginRecordFixture({ id: `p${i}`, install_seq: seq }));
        if (i % 2 === 0) await store.transaction((tx) => tx.deletePlugin(`p${i}`));
      }
      for (let i = 1; i < seen.length; i += 1) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    });

    it('commits every write of a transaction together, catalog state included', async () => {
      const seq = await nextSeq(store);
      await store.transaction(async (tx) => {
        await tx.savePlugin(pluginRecordFixture({ id: 'a', install_seq: seq }));
        await tx.savePlugin(pluginRecordFixture({ id: 'b', install_seq: seq + 1 }));
        expect((await tx.listPlugins()).map((r) => r.id)).toEqual(['a', 'b']);
        await tx.saveCatalogState(CATALOG);
        expect(await tx.catalogState()).toEqual(CATALOG);
      });
      expect((await store.listPlugins()).map((r) => r.id)).toEqual(['a', 'b']);
      expect(await store.transaction((tx) => tx.catalogState())).toEqual(CATALOG);
    });

    it('rolls a failed transaction back whole and rejects with its error', async () => {
      await save(store, pluginRecordFixture({ id: 'kept', install_seq: await nextSeq(store) }));
      await store.transaction((tx) => tx.saveCatalogState(CATALOG));
      const failure = new Error('refused half way');
      const seqBefore = await nextSeq(store);
      await expect(
        store.transaction(async (tx) => {
          await tx.savePlugin(pluginRecordFixture({ id: 'new', install_seq: await tx.nextInstallSeq() }));
          await tx.deletePlugin('kept');
          await tx.saveCatalogState({ ...CATALOG, revision: 8 });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect((await store.listPlugins()).map((r) => r.id)).toEqual(['kept']);
      expect(await store.transaction((tx) => tx.catalogState())).toEqual(CATALOG);
      // The rolled-back transaction's install_seq was never handed out for good, yet the next is still higher.
      expect(await nextSeq(store)).toBeGreaterThan(seqBefore);
    });

    it('runs transactions one at a time: a later one sees what the earlier one committed', async () => {
      const hold = gate();
      const order: string[] = [];
      const first = store.transaction(async (tx) => {
        order.push('first began');
        await tx.savePlugin(pluginRecordFixture({ id: 'a', install_seq: 1 }));
        await hold.opened;
        order.push('first ends');
      });
      const second = store.transaction(async (tx) => {
        order.push('second began');
        return (await tx.listPlugins()).map((r) => r.id);
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(order).toEqual(['first began']);
      hold.open();
      await first;
      expect(await second).toEqual(['a']);
      expect(order).toEqual(['first began', 'first ends', 'second began']);
    });

    it('never shows a transaction’s writes outside it before it commits', async () => {
      const hold = gate();
      const wrote = gate();
      const pending = store.transaction(async (tx) => {
        await tx.savePlugin(pluginRecordFixture({ id: 'draft', install_seq: 1 }));
        wrote.open();
        await hold.opened;
      });
      await wrote.opened;
      const outside = store.getPlugin('draft');
      const listed = store.listPlugins();
      hold.open();
      await pending;
      // Read during the transaction: either it waited for the commit or it saw the state before.
      const seen = await outside;
      expect(seen === undefined || seen.id === 'draft').toBe(true);
      const listedIds = (await listed).map((r) => r.id);
      expect(listedIds.length === 0 || listedIds[0] === 'draft').toBe(true);
      expect(await store.getPlugin('draft')).toMatchObject({ id: 'draft' });
    });

    it('saves, gets and lists sessions ordered by created_at, nulls kept', async () => {
      const later = sessionRecordFixture({ session_id: 's2', created_at: '2026-01-02T00:00:00.000Z' });
      const earlier = sessionRecordFixture({
        session_id: 's1',
        surface: 'office-task',
        status: 'starting',
        mcp_url: 'http://127.0.0.1:1/mcp',
        last_linked_at: '2026-01-01T00:00:01.000Z',
        link_down_since: '2026-01-01T00:00:02.000Z',
        launched: true,
        agentctl_pid: 4242,
        // Clock ticks since boot: past 2^31 after 248 days at 100 Hz.
        agentctl_start_time: 2 ** 33 + 7,
        session_verifier: 'SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy',
        created_at: '2026-01-01T00:00:00.000Z',
      });
      await store.saveSession(later);
      await store.saveSession(earlier);
      expect(await store.getSession('s1')).toEqual(earlier);
      expect(await store.getSession('s2')).toEqual(later);
      expect((await store.getSession('s2'))?.last_linked_at).toBeNull();
      expect((await store.listSessions()).map((s) => s.session_id)).toEqual(['s1', 's2']);
    });

    it('replaces the session with the same id on save', async () => {
      await store.saveSession(sessionRecordFixture({ session_id: 's1', status: 'starting' }));
      const live = sessionRecordFixture({ session_id: 's1', status: 'live', last_linked_at: '2026-03-03T00:00:00.000Z', updated_at: '2026-03-03T00:00:00.000Z' });
      await store.saveSession(live);
      expect(await store.listSessions()).toEqual([live]);
    });

    it('finds a session by its token hash, stopped ones included', async () => {
      await store.saveSession(sessionRecordFixture({ session_id: 's1', session_token_hash: 'h1' }));
      await store.saveSession(sessionRecordFixture({ session_id: 's2', session_token_hash: 'h2', status: 'stopped' }));
      expect((await store.findSessionByTokenHash('h2'))?.session_id).toBe('s2');
      expect((await store.findSessionByTokenHash('h1'))?.session_id).toBe('s1');
      expect(await store.findSessionByTokenHash('h3')).toBeUndefined();
    });

    it('starts the boot counter at 1 and increments it by one', async () => {
      expect(await store.incrementBootCounter()).toBe(1);
      expect(await store.incrementBootCounter()).toBe(2);
      expect(await store.incrementBootCounter()).toBe(3);
    });

    it('refuses every call once closed; closing again is harmless', async () => {
      await store.close();
      await expect(store.listPlugins()).rejects.toThrow();
      await expect(store.getSession('s')).rejects.toThrow();
      await expect(store.incrementBootCounter()).rejects.toThrow();
      await expect(store.transaction((tx) => tx.listPlugins())).rejects.toThrow();
      await store.close();
    });

    it('keeps records, sessions, catalog state, install_seq and the boot counter across a reopen (durable adapters)', async () => {
      if (!subject.reopen) {
        // A volatile adapter has nothing to keep; the shape of the suite stays the same.
        expect(subject.reopen).toBeUndefined();
        return;
      }
      const record = pluginRecordFixture({ id: 'a', install_seq: await nextSeq(store) });
      const session = sessionRecordFixture({ session_id: 's1', session_token_hash: 'h1' });
      await save(store, record);
      await store.transaction((tx) => tx.saveCatalogState(CATALOG));
      await store.saveSession(session);
      await store.incrementBootCounter();
      store = await subject.reopen();
      expect(await store.getPlugin('a')).toEqual(record);
      expect(await store.findSessionByTokenHash('h1')).toEqual(session);
      expect(await store.transaction((tx) => tx.catalogState())).toEqual(CATALOG);
      expect(await nextSeq(store)).toBeGreaterThan(record.install_seq);
      expect(await store.incrementBootCounter()).toBe(2);
    });
  });
}
