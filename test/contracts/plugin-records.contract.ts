import type { PluginStore } from '../../src/application/ports/plugin-store';
import { manifestFixture, pluginRecordFixture, toolFixture } from '../support/fixtures';
import { CATALOG, SEALED, gate, installed, nextSeq, save, storeUnderEach, type StoreFactory } from './store-under-test';

/**
 * The PluginRecords contract. A test file runs it over every adapter:
 * `describePluginRecordsContract([['in-memory', () => ({ store: new InMemoryPluginStore(), cleanup() {} })]])`.
 */
export function describePluginRecordsContract(rows: Array<[string, StoreFactory]>): void {
  describe.each(rows)('PluginRecords contract: %s', (_name, factory) => {
    const under = storeUnderEach(factory);
    let store: PluginStore;
    beforeEach(() => {
      store = under.subject().store;
    });

    it('starts empty', async () => {
      expect(await store.listPlugins()).toEqual([]);
      expect(await store.getPlugin('nope')).toBeUndefined();
      expect(await store.getConfig('nope')).toBeUndefined();
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

    it("keeps an MCP server's held tool_drift and server, and leaves both out while null", async () => {
      const tool_drift = { added: ['new_one'], removed: [], changed: ['edit'], detected_at: '2026-03-01T10:00:00.000Z' };
      const drifted = pluginRecordFixture({ id: 'mcp.a', install_seq: await nextSeq(store), server: { name: 'fixture', version: '1.0.0' }, tool_drift });
      const plain = pluginRecordFixture({ id: 'mcp.b', install_seq: await nextSeq(store) });
      await save(store, drifted);
      await save(store, plain);
      expect(await store.getPlugin('mcp.a')).toEqual(drifted);
      expect(await store.getPlugin('mcp.b')).not.toHaveProperty('tool_drift');
      const { tool_drift: _cleared, ...accepted } = drifted;
      await save(store, accepted);
      expect(await store.getPlugin('mcp.a')).toEqual(accepted);
      expect(await store.getPlugin('mcp.a')).not.toHaveProperty('tool_drift');
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

    it('starts the boot counter at 1 and increments it by one', async () => {
      expect(await store.incrementBootCounter()).toBe(1);
      expect(await store.incrementBootCounter()).toBe(2);
      expect(await store.incrementBootCounter()).toBe(3);
    });

    it('refuses every call once closed; closing again is harmless', async () => {
      await store.close();
      await expect(store.listPlugins()).rejects.toThrow();
      await expect(store.getPlugin('a')).rejects.toThrow();
      await expect(store.getConfig('a')).rejects.toThrow();
      await expect(store.incrementBootCounter()).rejects.toThrow();
      await expect(store.transaction((tx) => tx.listPlugins())).rejects.toThrow();
      await store.close();
    });

    describe('configuration', () => {
      it('saves a sealed configuration in a transaction, read back inside it and once committed', async () => {
        await installed(store, 'a');
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
        await installed(store, 'a');
        await store.transaction((tx) => tx.saveConfig('a', SEALED));
        await expect(
          store.transaction(async (tx) => {
            await tx.saveConfig('a', { keyId: 'k9', data: 'never' });
            throw new Error('refused');
          }),
        ).rejects.toThrow('refused');
        expect(await store.getConfig('a')).toEqual(SEALED);
      });
    });

    it('keeps records, configuration, catalog state, install_seq and the boot counter across a reopen (durable adapters)', async () => {
      const subject = under.subject();
      if (!subject.reopen) {
        // A volatile adapter has nothing to keep; the shape of the suite stays the same.
        expect(subject.reopen).toBeUndefined();
        return;
      }
      const record = pluginRecordFixture({ id: 'a', install_seq: await nextSeq(store) });
      await save(store, record);
      await store.transaction(async (tx) => {
        await tx.saveCatalogState(CATALOG);
        await tx.saveConfig('a', SEALED);
      });
      await store.incrementBootCounter();
      store = await subject.reopen();
      expect(await store.getPlugin('a')).toEqual(record);
      expect(await store.getConfig('a')).toEqual(SEALED);
      expect(await store.transaction((tx) => tx.catalogState())).toEqual(CATALOG);
      expect(await nextSeq(store)).toBeGreaterThan(record.install_seq);
      expect(await store.incrementBootCounter()).toBe(2);
    });
  });
}
