import type { PluginStore } from '../../src/application/ports/plugin-store';
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
  reopen?(): PluginStore;
}

export type StoreFactory = () => StoreUnderTest | Promise<StoreUnderTest>;

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

    it('starts empty', () => {
      expect(store.listPlugins()).toEqual([]);
      expect(store.listSessions()).toEqual([]);
      expect(store.getPlugin('nope')).toBeUndefined();
      expect(store.getSession('nope')).toBeUndefined();
      expect(store.findSessionByTokenHash('nope')).toBeUndefined();
    });

    it('saves and gets a plugin record exactly as given, manifest JSON and nulls included', () => {
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
      const record = pluginRecordFixture({ id: 'acme.tools', version: '1.2.0-beta.1', manifest, last_error: null, install_seq: store.nextInstallSeq() });
      store.savePlugin(record);
      expect(store.getPlugin('acme.tools')).toEqual(record);
      expect(store.getPlugin('acme.tools')?.last_error).toBeNull();
    });

    it('returns copies: mutating what it returned changes nothing stored', () => {
      const record = pluginRecordFixture({ id: 'a', install_seq: store.nextInstallSeq() });
      store.savePlugin(record);
      const got = store.getPlugin('a')!;
      got.status = 'error';
      got.manifest.agent_tools[0]!.name = 'changed';
      record.status = 'disabled';
      expect(store.getPlugin('a')?.status).toBe('active');
      expect(store.getPlugin('a')?.manifest.agent_tools[0]?.name).toBe('run');
    });

    it('replaces the record with the same id on save', () => {
      const seq = store.nextInstallSeq();
      store.savePlugin(pluginRecordFixture({ id: 'a', install_seq: seq }));
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
      store.savePlugin(replaced);
      expect(store.listPlugins()).toEqual([replaced]);
      expect(store.getPlugin('a')).toEqual(replaced);
    });

    it('lists plugins ordered by install_seq, whatever the save order', () => {
      const first = store.nextInstallSeq();
      const second = store.nextInstallSeq();
      const third = store.nextInstallSeq();
      store.savePlugin(pluginRecordFixture({ id: 'c', install_seq: third }));
      store.savePlugin(pluginRecordFixture({ id: 'a', install_seq: second }));
      store.savePlugin(pluginRecordFixture({ id: 'b', install_seq: first }));
      expect(store.listPlugins().map((r) => r.id)).toEqual(['b', 'a', 'c']);
    });

    it('deletes a plugin; deleting an unknown id does nothing', () => {
      store.savePlugin(pluginRecordFixture({ id: 'a', install_seq: store.nextInstallSeq() }));
      store.savePlugin(pluginRecordFixture({ id: 'b', install_seq: store.nextInstallSeq() }));
      store.deletePlugin('a');
      store.deletePlugin('unknown');
      expect(store.getPlugin('a')).toBeUndefined();
      expect(store.listPlugins().map((r) => r.id)).toEqual(['b']);
    });

    it('hands out strictly increasing install_seq values, also after deletes', () => {
      const seen: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const seq = store.nextInstallSeq();
        seen.push(seq);
        store.savePlugin(pluginRecordFixture({ id: `p${i}`, install_seq: seq }));
        if (i % 2 === 0) store.deletePlugin(`p${i}`);
      }
      for (let i = 1; i < seen.length; i += 1) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    });

    it('saves, gets and lists sessions ordered by created_at, nulls kept', () => {
      const later = sessionRecordFixture({ session_id: 's2', created_at: '2026-01-02T00:00:00.000Z' });
      const earlier = sessionRecordFixture({
        session_id: 's1',
        surface: 'office-task',
        status: 'starting',
        control_token: 'ctl',
        control_url: 'http://127.0.0.1:1/',
        mcp_url: null,
        launched: true,
        agentctl_pid: 4242,
        created_at: '2026-01-01T00:00:00.000Z',
      });
      store.saveSession(later);
      store.saveSession(earlier);
      expect(store.getSession('s1')).toEqual(earlier);
      expect(store.getSession('s2')).toEqual(later);
      expect(store.getSession('s2')?.control_url).toBeNull();
      expect(store.listSessions().map((s) => s.session_id)).toEqual(['s1', 's2']);
    });

    it('replaces the session with the same id on save', () => {
      store.saveSession(sessionRecordFixture({ session_id: 's1', status: 'starting' }));
      const live = sessionRecordFixture({ session_id: 's1', status: 'live', control_url: 'http://127.0.0.1:9/', updated_at: '2026-03-03T00:00:00.000Z' });
      store.saveSession(live);
      expect(store.listSessions()).toEqual([live]);
    });

    it('finds a session by its token hash, stopped ones included', () => {
      store.saveSession(sessionRecordFixture({ session_id: 's1', session_token_hash: 'h1' }));
      store.saveSession(sessionRecordFixture({ session_id: 's2', session_token_hash: 'h2', status: 'stopped' }));
      expect(store.findSessionByTokenHash('h2')?.session_id).toBe('s2');
      expect(store.findSessionByTokenHash('h1')?.session_id).toBe('s1');
      expect(store.findSessionByTokenHash('h3')).toBeUndefined();
    });

    it('starts the boot counter at 1 and increments it by one', () => {
      expect(store.incrementBootCounter()).toBe(1);
      expect(store.incrementBootCounter()).toBe(2);
      expect(store.incrementBootCounter()).toBe(3);
    });

    it('refuses every call once closed', () => {
      store.close();
      expect(() => store.listPlugins()).toThrow();
      expect(() => store.incrementBootCounter()).toThrow();
    });

    it('keeps records, sessions, install_seq and the boot counter across a reopen (durable adapters)', () => {
      if (!subject.reopen) {
        // A volatile adapter has nothing to keep; the shape of the suite stays the same.
        expect(subject.reopen).toBeUndefined();
        return;
      }
      const record = pluginRecordFixture({ id: 'a', install_seq: store.nextInstallSeq() });
      const session = sessionRecordFixture({ session_id: 's1', session_token_hash: 'h1' });
      store.savePlugin(record);
      store.saveSession(session);
      store.incrementBootCounter();
      store = subject.reopen();
      expect(store.getPlugin('a')).toEqual(record);
      expect(store.findSessionByTokenHash('h1')).toEqual(session);
      expect(store.nextInstallSeq()).toBeGreaterThan(record.install_seq);
      expect(store.incrementBootCounter()).toBe(2);
    });
  });
}
