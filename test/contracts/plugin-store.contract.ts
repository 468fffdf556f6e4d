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
        last_error_at: '2026-02-01T23:59:58.000Z',
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
      const live = sessionRecordFixture({
        session_id: 's1',
        status: 'live',
        last_linked_at: '2026-03-03T00:00:00.000Z',
        updated_at: '2026-03-03T00:00:00.000Z',
      });
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

    describe('configuration, state and secrets (Host API)', () => {
      const SEALED = { keyId: 'k1', data: 'opaque-ciphertext==' };

      async function installed(...ids: string[]): Promise<void> {
        for (const id of ids) await save(store, pluginRecordFixture({ id, install_seq: await nextSeq(store) }));
      }

      it('saves a sealed configuration in a transaction, read back inside it and once committed', async () => {
        await installed('a');
        expect(await store.getConfig('a')).toBeUndefined();
        await store.transaction(async (tx) => {
          expect(await tx.getConfig('a')).toBeUndefined();
          await tx.saveConfig('a', SEALED);
          expect(await tx.getConfig('a')).toEqual(SEALED);
        });
        expect(await store.getConfig('a')).toEqual(SEALED);
        await store.transaction((tx) => tx.saveConfig('a', { keyId: 'k2', data: 'other' }));
        expect(await store.getConfig('a')).toEqual({ keyId: 'k2', data: 'other' });
      });

      it('rolls a configuration back with its transaction', async () => {
        await installed('a');
        await store.transaction((tx) => tx.saveConfig('a', SEALED));
        await expect(
          store.transaction(async (tx) => {
            await tx.saveConfig('a', { keyId: 'k9', data: 'never' });
            throw new Error('refused');
          }),
        ).rejects.toThrow('refused');
        expect(await store.getConfig('a')).toEqual(SEALED);
      });

      it('stores state text exactly, replaces it, deletes it and says whether it existed', async () => {
        await installed('a');
        const text = '{"b": [1, 2.50, "é"],  "a": null}';
        expect(await store.putState('a', 'notes/1', text, 10)).toBe('stored');
        expect(await store.getState('a', 'notes/1')).toBe(text);
        expect(await store.putState('a', 'notes/1', '"second"', 10)).toBe('stored');
        expect(await store.getState('a', 'notes/1')).toBe('"second"');
        expect(await store.getState('a', 'notes/2')).toBeUndefined();
        expect(await store.deleteState('a', 'notes/1')).toBe(true);
        expect(await store.deleteState('a', 'notes/1')).toBe(false);
        expect(await store.getState('a', 'notes/1')).toBeUndefined();
      });

      it('refuses a write for a plugin without a record (being uninstalled), writing nothing', async () => {
        expect(await store.putState('ghost', 'k', '1', 10)).toBe('no_plugin');
        expect(await store.putSecret('ghost', 'k', SEALED, 10)).toBe('no_plugin');
        await installed('ghost');
        expect(await store.getState('ghost', 'k')).toBeUndefined();
        expect(await store.getSecret('ghost', 'k')).toBeUndefined();
      });

      it('refuses a new key at the key limit but still replaces an existing one; state and secrets count apart', async () => {
        await installed('a');
        for (const key of ['k1', 'k2', 'k3']) expect(await store.putState('a', key, '1', 3)).toBe('stored');
        expect(await store.putState('a', 'k4', '1', 3)).toBe('limit_reached');
        expect(await store.getState('a', 'k4')).toBeUndefined();
        expect(await store.putState('a', 'k2', '2', 3)).toBe('stored');
        expect(await store.putSecret('a', 'k4', SEALED, 3)).toBe('stored');
        await store.deleteState('a', 'k1');
        expect(await store.putState('a', 'k4', '1', 3)).toBe('stored');
      });

      it("counts and keeps each plugin's keys apart", async () => {
        await installed('a', 'b');
        await store.putState('a', 'same', '"a"', 1);
        expect(await store.putState('b', 'same', '"b"', 1)).toBe('stored');
        expect(await store.getState('a', 'same')).toBe('"a"');
        expect(await store.getState('b', 'same')).toBe('"b"');
        expect(await store.listStateKeys('b', '', undefined, 10)).toEqual(['same']);
      });

      it('lists state keys by prefix in byte order, after a key, at most limit', async () => {
        await installed('a');
        const keys = ['b', 'a/2', 'a/10', 'a/1', 'A', 'a', 'a:x', 'a.', 'ab', 'Z'];
        for (const key of keys) await store.putState('a', key, '0', 100);
        expect(await store.listStateKeys('a', '', undefined, 100)).toEqual(['A', 'Z', 'a', 'a.', 'a/1', 'a/10', 'a/2', 'a:x', 'ab', 'b']);
        expect(await store.listStateKeys('a', 'a/', undefined, 100)).toEqual(['a/1', 'a/10', 'a/2']);
        expect(await store.listStateKeys('a', 'a', undefined, 3)).toEqual(['a', 'a.', 'a/1']);
        expect(await store.listStateKeys('a', 'a', 'a/1', 3)).toEqual(['a/10', 'a/2', 'a:x']);
        expect(await store.listStateKeys('a', 'a', 'ab', 3)).toEqual([]);
        expect(await store.listStateKeys('a', 'zz', undefined, 3)).toEqual([]);
      });

      it('stores sealed secrets, replaces and deletes them', async () => {
        await installed('a');
        expect(await store.getSecret('a', 'oauth/refresh')).toBeUndefined();
        expect(await store.putSecret('a', 'oauth/refresh', SEALED, 10)).toBe('stored');
        expect(await store.getSecret('a', 'oauth/refresh')).toEqual(SEALED);
        expect(await store.putSecret('a', 'oauth/refresh', { keyId: 'k2', data: 'new' }, 10)).toBe('stored');
        expect(await store.getSecret('a', 'oauth/refresh')).toEqual({ keyId: 'k2', data: 'new' });
        expect(await store.deleteSecret('a', 'oauth/refresh')).toBe(true);
        expect(await store.deleteSecret('a', 'oauth/refresh')).toBe(false);
      });

      it("deletes a plugin's configuration, state and secrets with its record, and nothing of another plugin", async () => {
        await installed('a', 'b');
        for (const id of ['a', 'b']) {
          await store.transaction((tx) => tx.saveConfig(id, SEALED));
          await store.putState(id, 'k', '1', 10);
          await store.putSecret(id, 'k', SEALED, 10);
        }
        await store.transaction((tx) => tx.deletePlugin('a'));
        await installed('a');
        expect(await store.getConfig('a')).toBeUndefined();
        expect(await store.getState('a', 'k')).toBeUndefined();
        expect(await store.getSecret('a', 'k')).toBeUndefined();
        expect(await store.listStateKeys('a', '', undefined, 10)).toEqual([]);
        expect(await store.getConfig('b')).toEqual(SEALED);
        expect(await store.getState('b', 'k')).toBe('1');
        expect(await store.getSecret('b', 'k')).toEqual(SEALED);
      });

      it('keeps state and secrets when a rolled-back transaction had deleted the plugin', async () => {
        await installed('a');
        await store.putState('a', 'k', '1', 10);
        await expect(
          store.transaction(async (tx) => {
            await tx.deletePlugin('a');
            throw new Error('refused');
          }),
        ).rejects.toThrow('refused');
        expect(await store.getState('a', 'k')).toBe('1');
      });

      it('refuses Host entry calls once closed', async () => {
        await store.close();
        await expect(store.getState('a', 'k')).rejects.toThrow();
        await expect(store.putSecret('a', 'k', SEALED, 1)).rejects.toThrow();
        await expect(store.getConfig('a')).rejects.toThrow();
      });

      it('keeps configuration, state and secrets across a reopen (durable adapters)', async () => {
        if (!subject.reopen) return;
        await installed('a');
        await store.transaction((tx) => tx.saveConfig('a', SEALED));
        await store.putState('a', 'k', '{"n":1}', 10);
        await store.putSecret('a', 's', SEALED, 10);
        store = await subject.reopen();
        expect(await store.getConfig('a')).toEqual(SEALED);
        expect(await store.getState('a', 'k')).toBe('{"n":1}');
        expect(await store.getSecret('a', 's')).toEqual(SEALED);
      });
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
