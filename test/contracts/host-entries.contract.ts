import type { PluginStore } from '../../src/application/ports/plugin-store';
import { SEALED, installed, storeUnderEach, type StoreFactory } from './store-under-test';

/**
 * The HostEntries contract. A test file runs it over every adapter:
 * `describeHostEntriesContract([['in-memory', () => ({ store: new InMemoryPluginStore(), cleanup() {} })]])`.
 */
export function describeHostEntriesContract(rows: Array<[string, StoreFactory]>): void {
  describe.each(rows)('HostEntries contract: %s', (_name, factory) => {
    const under = storeUnderEach(factory);
    let store: PluginStore;
    beforeEach(() => {
      store = under.subject().store;
    });

    it('stores state text exactly, replaces it, deletes it and says whether it existed', async () => {
      await installed(store, 'a');
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
      await installed(store, 'ghost');
      expect(await store.getState('ghost', 'k')).toBeUndefined();
      expect(await store.getSecret('ghost', 'k')).toBeUndefined();
    });

    it('refuses a new key at the key limit but still replaces an existing one; state and secrets count apart', async () => {
      await installed(store, 'a');
      for (const key of ['k1', 'k2', 'k3']) expect(await store.putState('a', key, '1', 3)).toBe('stored');
      expect(await store.putState('a', 'k4', '1', 3)).toBe('limit_reached');
      expect(await store.getState('a', 'k4')).toBeUndefined();
      expect(await store.putState('a', 'k2', '2', 3)).toBe('stored');
      expect(await store.putSecret('a', 'k4', SEALED, 3)).toBe('stored');
      await store.deleteState('a', 'k1');
      expect(await store.putState('a', 'k4', '1', 3)).toBe('stored');
    });

    it("counts and keeps each plugin's keys apart", async () => {
      await installed(store, 'a', 'b');
      await store.putState('a', 'same', '"a"', 1);
      expect(await store.putState('b', 'same', '"b"', 1)).toBe('stored');
      expect(await store.getState('a', 'same')).toBe('"a"');
      expect(await store.getState('b', 'same')).toBe('"b"');
      expect(await store.listStateKeys('b', '', undefined, 10)).toEqual(['same']);
    });

    it('lists state keys by prefix in byte order, after a key, at most limit', async () => {
      await installed(store, 'a');
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
      await installed(store, 'a');
      expect(await store.getSecret('a', 'oauth/refresh')).toBeUndefined();
      expect(await store.putSecret('a', 'oauth/refresh', SEALED, 10)).toBe('stored');
      expect(await store.getSecret('a', 'oauth/refresh')).toEqual(SEALED);
      expect(await store.putSecret('a', 'oauth/refresh', { keyId: 'k2', data: 'new' }, 10)).toBe('stored');
      expect(await store.getSecret('a', 'oauth/refresh')).toEqual({ keyId: 'k2', data: 'new' });
      expect(await store.deleteSecret('a', 'oauth/refresh')).toBe(true);
      expect(await store.deleteSecret('a', 'oauth/refresh')).toBe(false);
    });

    it("deletes a plugin's configuration, state and secrets with its record, and nothing of another plugin", async () => {
      await installed(store, 'a', 'b');
      for (const id of ['a', 'b']) {
        await store.transaction((tx) => tx.saveConfig(id, SEALED));
        await store.putState(id, 'k', '1', 10);
        await store.putSecret(id, 'k', SEALED, 10);
      }
      await store.transaction((tx) => tx.deletePlugin('a'));
      await installed(store, 'a');
      expect(await store.getConfig('a')).toBeUndefined();
      expect(await store.getState('a', 'k')).toBeUndefined();
      expect(await store.getSecret('a', 'k')).toBeUndefined();
      expect(await store.listStateKeys('a', '', undefined, 10)).toEqual([]);
      expect(await store.getConfig('b')).toEqual(SEALED);
      expect(await store.getState('b', 'k')).toBe('1');
      expect(await store.getSecret('b', 'k')).toEqual(SEALED);
    });

    it('keeps state and secrets when a rolled-back transaction had deleted the plugin', async () => {
      await installed(store, 'a');
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

    it('keeps state and secrets across a reopen (durable adapters)', async () => {
      const subject = under.subject();
      if (!subject.reopen) {
        expect(subject.reopen).toBeUndefined();
        return;
      }
      await installed(store, 'a');
      await store.putState('a', 'k', '{"n":1}', 10);
      await store.putSecret('a', 's', SEALED, 10);
      store = await subject.reopen();
      expect(await store.getState('a', 'k')).toBe('{"n":1}');
      expect(await store.getSecret('a', 's')).toEqual(SEALED);
    });
  });
}
