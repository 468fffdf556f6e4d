import type { PluginStore } from '../../src/application/ports/plugin-store';
import { SEALED, installed, storeUnderEach, type StoreFactory } from './store-under-test';
import { instanceOwner, taskOwner, workspaceOwner } from '../../src/domain/host-entry-owner';

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
      expect(await store.putState(instanceOwner('a'), 'notes/1', text, 10)).toBe('stored');
      expect(await store.getState(instanceOwner('a'), 'notes/1')).toBe(text);
      expect(await store.putState(instanceOwner('a'), 'notes/1', '"second"', 10)).toBe('stored');
      expect(await store.getState(instanceOwner('a'), 'notes/1')).toBe('"second"');
      expect(await store.getState(instanceOwner('a'), 'notes/2')).toBeUndefined();
      expect(await store.deleteState(instanceOwner('a'), 'notes/1')).toBe(true);
      expect(await store.deleteState(instanceOwner('a'), 'notes/1')).toBe(false);
      expect(await store.getState(instanceOwner('a'), 'notes/1')).toBeUndefined();
    });

    it('refuses a write for a plugin without a record (being uninstalled), writing nothing', async () => {
      expect(await store.putState(instanceOwner('ghost'), 'k', '1', 10)).toBe('no_plugin');
      expect(await store.putSecret(instanceOwner('ghost'), 'k', SEALED, 10)).toBe('no_plugin');
      await installed(store, 'ghost');
      expect(await store.getState(instanceOwner('ghost'), 'k')).toBeUndefined();
      expect(await store.getSecret(instanceOwner('ghost'), 'k')).toBeUndefined();
    });

    it('refuses a new key at the key limit but still replaces an existing one; state and secrets count apart', async () => {
      await installed(store, 'a');
      for (const key of ['k1', 'k2', 'k3']) expect(await store.putState(instanceOwner('a'), key, '1', 3)).toBe('stored');
      expect(await store.putState(instanceOwner('a'), 'k4', '1', 3)).toBe('limit_reached');
      expect(await store.getState(instanceOwner('a'), 'k4')).toBeUndefined();
      expect(await store.putState(instanceOwner('a'), 'k2', '2', 3)).toBe('stored');
      expect(await store.putSecret(instanceOwner('a'), 'k4', SEALED, 3)).toBe('stored');
      await store.deleteState(instanceOwner('a'), 'k1');
      expect(await store.putState(instanceOwner('a'), 'k4', '1', 3)).toBe('stored');
    });

    it("counts and keeps each plugin's keys apart", async () => {
      await installed(store, 'a', 'b');
      await store.putState(instanceOwner('a'), 'same', '"a"', 1);
      expect(await store.putState(instanceOwner('b'), 'same', '"b"', 1)).toBe('stored');
      expect(await store.getState(instanceOwner('a'), 'same')).toBe('"a"');
      expect(await store.getState(instanceOwner('b'), 'same')).toBe('"b"');
      expect(await store.listStateKeys(instanceOwner('b'), '', undefined, 10)).toEqual(['same']);
    });

    it('lists state keys by prefix in byte order, after a key, at most limit', async () => {
      await installed(store, 'a');
      const keys = ['b', 'a/2', 'a/10', 'a/1', 'A', 'a', 'a:x', 'a.', 'ab', 'Z'];
      for (const key of keys) await store.putState(instanceOwner('a'), key, '0', 100);
      expect(await store.listStateKeys(instanceOwner('a'), '', undefined, 100)).toEqual(['A', 'Z', 'a', 'a.', 'a/1', 'a/10', 'a/2', 'a:x', 'ab', 'b']);
      expect(await store.listStateKeys(instanceOwner('a'), 'a/', undefined, 100)).toEqual(['a/1', 'a/10', 'a/2']);
      expect(await store.listStateKeys(instanceOwner('a'), 'a', undefined, 3)).toEqual(['a', 'a.', 'a/1']);
      expect(await store.listStateKeys(instanceOwner('a'), 'a', 'a/1', 3)).toEqual(['a/10', 'a/2', 'a:x']);
      expect(await store.listStateKeys(instanceOwner('a'), 'a', 'ab', 3)).toEqual([]);
      expect(await store.listStateKeys(instanceOwner('a'), 'zz', undefined, 3)).toEqual([]);
    });

    it('stores sealed secrets, replaces and deletes them', async () => {
      await installed(store, 'a');
      expect(await store.getSecret(instanceOwner('a'), 'oauth/refresh')).toBeUndefined();
      expect(await store.putSecret(instanceOwner('a'), 'oauth/refresh', SEALED, 10)).toBe('stored');
      expect(await store.getSecret(instanceOwner('a'), 'oauth/refresh')).toEqual(SEALED);
      expect(await store.putSecret(instanceOwner('a'), 'oauth/refresh', { keyId: 'k2', data: 'new' }, 10)).toBe('stored');
      expect(await store.getSecret(instanceOwner('a'), 'oauth/refresh')).toEqual({ keyId: 'k2', data: 'new' });
      expect(await store.deleteSecret(instanceOwner('a'), 'oauth/refresh')).toBe(true);
      expect(await store.deleteSecret(instanceOwner('a'), 'oauth/refresh')).toBe(false);
    });

    it("deletes a plugin's configuration, workspace overrides, state and secrets of every scope with its record, and nothing of another plugin", async () => {
      await installed(store, 'a', 'b');
      const owners = (id: string) => [instanceOwner(id), workspaceOwner(id, 'w1'), taskOwner(id, 'w1', 't1')];
      for (const id of ['a', 'b']) {
        await store.transaction(async (tx) => {
          await tx.saveConfig(id, SEALED);
          await tx.saveWorkspaceConfig(id, 'w1', SEALED);
        });
        for (const owner of owners(id)) {
          await store.putState(owner, 'k', '1', 10);
          await store.putSecret(owner, 'k', SEALED, 10);
        }
      }
      await store.transaction((tx) => tx.deletePlugin('a'));
      await installed(store, 'a');
      expect(await store.getConfig('a')).toBeUndefined();
      expect(await store.getWorkspaceConfig('a', 'w1')).toBeUndefined();
      expect(await store.listWorkspaceConfigs('a')).toEqual([]);
      for (const owner of owners('a')) {
        expect(await store.getState(owner, 'k')).toBeUndefined();
        expect(await store.getSecret(owner, 'k')).toBeUndefined();
        expect(await store.listStateKeys(owner, '', undefined, 10)).toEqual([]);
      }
      expect(await store.getConfig('b')).toEqual(SEALED);
      expect(await store.getWorkspaceConfig('b', 'w1')).toEqual(SEALED);
      for (const owner of owners('b')) {
        expect(await store.getState(owner, 'k')).toBe('1');
        expect(await store.getSecret(owner, 'k')).toEqual(SEALED);
      }
    });

    it('keeps the entries of each scope and scope id apart, and counts the key limit per owner', async () => {
      await installed(store, 'a');
      const owners = [instanceOwner('a'), workspaceOwner('a', 'w1'), workspaceOwner('a', 'w2'), taskOwner('a', 'w1', 't1'), taskOwner('a', 'w2', 't1')];
      for (const [i, owner] of owners.entries()) {
        expect(await store.putState(owner, 'same', String(i), 1)).toBe('stored');
        expect(await store.putSecret(owner, 'same', { keyId: 'k', data: String(i) }, 1)).toBe('stored');
      }
      for (const [i, owner] of owners.entries()) {
        expect(await store.getState(owner, 'same')).toBe(String(i));
        expect(await store.getSecret(owner, 'same')).toEqual({ keyId: 'k', data: String(i) });
        expect(await store.listStateKeys(owner, '', undefined, 10)).toEqual(['same']);
        expect(await store.putState(owner, 'other', '1', 1)).toBe('limit_reached');
        expect(await store.putSecret(owner, 'other', SEALED, 1)).toBe('limit_reached');
      }
      expect(await store.deleteState(workspaceOwner('a', 'w1'), 'same')).toBe(true);
      expect(await store.getState(workspaceOwner('a', 'w1'), 'same')).toBeUndefined();
      expect(await store.getState(workspaceOwner('a', 'w2'), 'same')).toBe('2');
      expect(await store.getState(instanceOwner('a'), 'same')).toBe('0');
      expect(await store.deleteSecret(taskOwner('a', 'w1', 't1'), 'same')).toBe(true);
      expect(await store.getSecret(taskOwner('a', 'w2', 't1'), 'same')).toEqual({ keyId: 'k', data: '4' });
      expect(await store.putState(workspaceOwner('ghost', 'w1'), 'k', '1', 10)).toBe('no_plugin');
    });

    it("stores each workspace's overrides apart, replaces and removes them, and lists them in workspace id order", async () => {
      await installed(store, 'a', 'b');
      await store.transaction(async (tx) => {
        await tx.saveWorkspaceConfig('a', 'w2', { keyId: 'k', data: 'two' });
        await tx.saveWorkspaceConfig('a', 'W1', { keyId: 'k', data: 'one' });
        await tx.saveWorkspaceConfig('a', 'w1', SEALED);
        await tx.saveWorkspaceConfig('b', 'w1', { keyId: 'k', data: 'b' });
        expect(await tx.getWorkspaceConfig('a', 'w2')).toEqual({ keyId: 'k', data: 'two' });
      });
      expect(await store.getWorkspaceConfig('a', 'w1')).toEqual(SEALED);
      expect(await store.getWorkspaceConfig('a', 'w3')).toBeUndefined();
      expect((await store.listWorkspaceConfigs('a')).map((entry) => entry.workspaceId)).toEqual(['W1', 'w1', 'w2']);
      await store.transaction(async (tx) => {
        await tx.saveWorkspaceConfig('a', 'w2', null);
        await tx.saveWorkspaceConfig('a', 'w1', { keyId: 'k2', data: 'new' });
        expect(await tx.listWorkspaceConfigs('a')).toEqual([
          { workspaceId: 'W1', config: { keyId: 'k', data: 'one' } },
          { workspaceId: 'w1', config: { keyId: 'k2', data: 'new' } },
        ]);
      });
      expect(await store.getWorkspaceConfig('a', 'w2')).toBeUndefined();
      expect(await store.getWorkspaceConfig('b', 'w1')).toEqual({ keyId: 'k', data: 'b' });
      await expect(
        store.transaction(async (tx) => {
          await tx.saveWorkspaceConfig('a', 'W1', null);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await store.getWorkspaceConfig('a', 'W1')).toEqual({ keyId: 'k', data: 'one' });
    });

    it('keeps state and secrets when a rolled-back transaction had deleted the plugin', async () => {
      await installed(store, 'a');
      await store.putState(instanceOwner('a'), 'k', '1', 10);
      await expect(
        store.transaction(async (tx) => {
          await tx.deletePlugin('a');
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await store.getState(instanceOwner('a'), 'k')).toBe('1');
    });

    it('refuses Host entry calls once closed', async () => {
      await store.close();
      await expect(store.getState(instanceOwner('a'), 'k')).rejects.toThrow();
      await expect(store.putSecret(instanceOwner('a'), 'k', SEALED, 1)).rejects.toThrow();
      await expect(store.getConfig('a')).rejects.toThrow();
    });

    it('keeps state and secrets across a reopen (durable adapters)', async () => {
      const subject = under.subject();
      if (!subject.reopen) {
        expect(subject.reopen).toBeUndefined();
        return;
      }
      await installed(store, 'a');
      await store.putState(instanceOwner('a'), 'k', '{"n":1}', 10);
      await store.putSecret(instanceOwner('a'), 's', SEALED, 10);
      store = await subject.reopen();
      expect(await store.getState(instanceOwner('a'), 'k')).toBe('{"n":1}');
      expect(await store.getSecret(instanceOwner('a'), 's')).toEqual(SEALED);
    });
  });
}
