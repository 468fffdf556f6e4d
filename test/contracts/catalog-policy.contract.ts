import type { PluginStore } from '../../src/application/ports/plugin-store';
import { DEFAULT_PROFILE, DEFAULT_SCOPE, type CatalogPolicy, type PluginScope } from '../../src/domain/scopes';
import { sessionRecordFixture } from '../support/fixtures';
import { gate, installed, storeUnderEach, type StoreFactory } from './store-under-test';

const SCOPE: PluginScope = { workspaces: ['ws-1', 'ws-2'], disabled_tools: { '*': ['run'], 'ws-1': ['add', 'remove'] } };

/** The policy as plain data, to compare: scopes by plugin id, profiles in name order. */
function plain(policy: CatalogPolicy) {
  return {
    scopes: Object.fromEntries([...policy.scopes].sort(([a], [b]) => (a < b ? -1 : 1))),
    profiles: [...policy.profiles.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
  };
}

/**
 * The scopes and profiles a store transaction keeps (docs/catalog-and-sessions.md, "Scopes"),
 * over every PluginRecords adapter: `describeCatalogPolicyContract(rows)` beside the records
 * contract, with the same factories.
 */
export function describeCatalogPolicyContract(rows: Array<[string, StoreFactory]>): void {
  describe.each(rows)('catalog policy contract: %s', (_name, factory) => {
    const under = storeUnderEach(factory);
    let store: PluginStore;
    const policy = async () => plain(await store.transaction((tx) => tx.catalogPolicy()));
    beforeEach(() => {
      store = under.subject().store;
    });

    it('holds no scope and the default profile until one is saved', async () => {
      expect(await policy()).toEqual({ scopes: {}, profiles: [DEFAULT_PROFILE] });
    });

    it('saves a scope normalised, replaces it, and the default scope deletes it', async () => {
      await installed(store, 'acme.a', 'acme.b');
      await store.transaction((tx) =>
        tx.savePluginScope('acme.a', { workspaces: ['ws-2', 'ws-1', 'ws-2'], disabled_tools: { 'ws-1': ['remove', 'add'], '*': ['run'], 'ws-3': [] } }),
      );
      expect(await policy()).toEqual({ scopes: { 'acme.a': SCOPE }, profiles: [DEFAULT_PROFILE] });
      await store.transaction((tx) => tx.savePluginScope('acme.a', { workspaces: [], disabled_tools: {} }));
      await store.transaction((tx) => tx.savePluginScope('acme.b', SCOPE));
      expect((await policy()).scopes).toEqual({ 'acme.a': { workspaces: [], disabled_tools: {} }, 'acme.b': SCOPE });
      await store.transaction((tx) => tx.savePluginScope('acme.a', DEFAULT_SCOPE));
      expect((await policy()).scopes).toEqual({ 'acme.b': SCOPE });
    });

    it('saves, replaces and deletes profiles, default always there and changeable', async () => {
      await store.transaction(async (tx) => {
        await tx.saveProfile({ name: 'zeta', include: ['b', 'a', 'a'], exclude: [] });
        await tx.saveProfile({ name: 'alpha', include: ['*'], exclude: ['*_delete'] });
      });
      expect((await policy()).profiles).toEqual([
        { name: 'alpha', include: ['*'], exclude: ['*_delete'] },
        DEFAULT_PROFILE,
        { name: 'zeta', include: ['a', 'b'], exclude: [] },
      ]);
      await store.transaction(async (tx) => {
        await tx.saveProfile({ name: 'zeta', include: ['c'], exclude: ['d'] });
        await tx.saveProfile({ name: 'default', include: ['acme.*'], exclude: [] });
        await tx.deleteProfile('alpha');
        await tx.deleteProfile('never-was');
      });
      expect((await policy()).profiles).toEqual([
        { name: 'default', include: ['acme.*'], exclude: [] },
        { name: 'zeta', include: ['c'], exclude: ['d'] },
      ]);
      // A deleted default reads as its default again.
      await store.transaction((tx) => tx.deleteProfile('default'));
      expect((await policy()).profiles).toEqual([DEFAULT_PROFILE, { name: 'zeta', include: ['c'], exclude: ['d'] }]);
    });

    it('removes a plugin’s scope with deletePlugin, and only that one', async () => {
      await installed(store, 'acme.a', 'acme.b');
      await store.transaction(async (tx) => {
        await tx.savePluginScope('acme.a', SCOPE);
        await tx.savePluginScope('acme.b', SCOPE);
      });
      await store.transaction((tx) => tx.deletePlugin('acme.a'));
      expect((await policy()).scopes).toEqual({ 'acme.b': SCOPE });
    });

    it('keeps nothing of a transaction that rejects, and reads its own writes inside one', async () => {
      await installed(store, 'acme.a');
      const held = gate();
      const failing = store.transaction(async (tx) => {
        await tx.savePluginScope('acme.a', SCOPE);
        await tx.saveProfile({ name: 'ops', include: ['*'], exclude: [] });
        expect(plain(await tx.catalogPolicy()).scopes).toEqual({ 'acme.a': SCOPE });
        held.open();
        throw new Error('refused');
      });
      await held.opened;
      await expect(failing).rejects.toThrow('refused');
      expect(await policy()).toEqual({ scopes: {}, profiles: [DEFAULT_PROFILE] });
    });

    it("saves a session with the transaction, and lists the sessions not stopped that use a profile, the transaction's own included", async () => {
      const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
      await store.saveSession(sessionRecordFixture({ session_id: 's-1', profile: 'ops', status: 'live', created_at: at(1) }));
      await store.saveSession(sessionRecordFixture({ session_id: 's-2', profile: 'ops', status: 'stopped', created_at: at(2) }));
      await store.saveSession(sessionRecordFixture({ session_id: 's-3', profile: 'default', status: 'live', created_at: at(3) }));
      const seen = await store.transaction(async (tx) => {
        await tx.saveSession(sessionRecordFixture({ session_id: 's-4', profile: 'ops', status: 'starting', created_at: at(4) }));
        await tx.saveSession(sessionRecordFixture({ session_id: 's-3', profile: 'ops', status: 'dead', created_at: at(3) }));
        return tx.sessionsUsingProfile('ops');
      });
      expect(seen).toEqual(['s-1', 's-3', 's-4']);
      expect(await store.getSession('s-4')).toEqual(sessionRecordFixture({ session_id: 's-4', profile: 'ops', status: 'starting', created_at: at(4) }));
      expect((await store.listSessions()).map((s) => s.session_id)).toEqual(['s-1', 's-2', 's-3', 's-4']);
      expect(await store.transaction((tx) => tx.sessionsUsingProfile('nobody'))).toEqual([]);
    });

    it('keeps no session saved in a transaction that rejects', async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.saveSession(sessionRecordFixture({ session_id: 's-1', profile: 'ops', status: 'starting' }));
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await store.getSession('s-1')).toBeUndefined();
      expect(await store.transaction((tx) => tx.sessionsUsingProfile('ops'))).toEqual([]);
    });

    it('keeps scopes and profiles across a reopen (durable adapters)', async () => {
      const subject = under.subject();
      if (!subject.reopen) {
        expect(subject.reopen).toBeUndefined();
        return;
      }
      await installed(store, 'acme.a');
      await store.transaction(async (tx) => {
        await tx.savePluginScope('acme.a', SCOPE);
        await tx.saveProfile({ name: 'ops', include: ['acme.*'], exclude: ['*_remove'] });
      });
      store = await subject.reopen();
      expect(await policy()).toEqual({ scopes: { 'acme.a': SCOPE }, profiles: [DEFAULT_PROFILE, { name: 'ops', include: ['acme.*'], exclude: ['*_remove'] }] });
    });
  });
}
