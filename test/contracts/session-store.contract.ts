import type { PluginStore } from '../../src/application/ports/plugin-store';
import type { SessionStatus } from '../../src/domain/session';
import { sessionRecordFixture } from '../support/fixtures';
import { storeUnderEach, type StoreFactory } from './store-under-test';

/**
 * The SessionStore contract. A test file runs it over every adapter:
 * `describeSessionStoreContract([['in-memory', () => ({ store: new InMemoryPluginStore(), cleanup() {} })]])`.
 */
export function describeSessionStoreContract(rows: Array<[string, StoreFactory]>): void {
  describe.each(rows)('SessionStore contract: %s', (_name, factory) => {
    const under = storeUnderEach(factory);
    let store: PluginStore;
    beforeEach(() => {
      store = under.subject().store;
    });

    it('starts empty', async () => {
      expect(await store.listSessions()).toEqual([]);
      expect(await store.getSession('nope')).toBeUndefined();
      expect(await store.findSessionByTokenHash('nope')).toBeUndefined();
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
        agentctl_replica: 'r-0123456789ab',
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

    /** The ids of the sessions left, sorted. */
    async function sessionsLeft(): Promise<string[]> {
      return (await store.listSessions()).map((s) => s.session_id).sort();
    }
    /** Saves one session per [id, status, updated_at], in that order. */
    async function saveAll(rows: Array<[string, SessionStatus, string]>): Promise<void> {
      for (const [session_id, status, updated_at] of rows) {
        await store.saveSession(
          sessionRecordFixture({ session_id, status, session_token_hash: `h-${session_id}`, created_at: '2026-01-01T00:00:00.000Z', updated_at }),
        );
      }
    }
    const old = '2026-01-01T00:00:00.000Z';
    const recent = '2026-01-03T00:00:00.000Z';

    it('deletes the sessions in the statuses named, never a starting or live one however old', async () => {
      await saveAll([
        ['stopped', 'stopped', old],
        ['dead', 'dead', old],
        ['live', 'live', old],
        ['starting', 'starting', old],
      ]);
      expect(await store.deleteSessions({ statuses: ['stopped'] })).toBe(1);
      expect(await sessionsLeft()).toEqual(['dead', 'live', 'starting']);
      expect(await store.deleteSessions({ statuses: ['stopped', 'dead'] })).toBe(1);
      expect(await sessionsLeft()).toEqual(['live', 'starting']);
      expect(await store.deleteSessions({ statuses: ['stopped', 'dead'] })).toBe(0);
      expect(await store.findSessionByTokenHash('h-stopped')).toBeUndefined();
    });

    it('deletes only sessions last updated before the instant given', async () => {
      await saveAll([
        ['s-old', 'stopped', old],
        ['s-recent', 'stopped', recent],
        ['d-old', 'dead', old],
        ['d-recent', 'dead', recent],
      ]);
      expect(await store.deleteSessions({ statuses: ['stopped', 'dead'], updatedBefore: '2026-01-02T00:00:00.000Z' })).toBe(2);
      expect(await sessionsLeft()).toEqual(['d-recent', 's-recent']);
      // The instant itself is not before itself.
      expect(await store.deleteSessions({ statuses: ['stopped'], updatedBefore: recent })).toBe(0);
    });

    it('keeps the most recently updated sessions when asked to keep some', async () => {
      await saveAll([
        ['s1', 'stopped', '2026-01-01T00:00:01.000Z'],
        ['s3', 'stopped', '2026-01-01T00:00:03.000Z'],
        ['s2', 'stopped', '2026-01-01T00:00:02.000Z'],
        ['s4', 'stopped', '2026-01-01T00:00:04.000Z'],
        ['d0', 'dead', '2026-01-01T00:00:00.000Z'],
      ]);
      expect(await store.deleteSessions({ statuses: ['stopped'], keepNewest: 2 })).toBe(2);
      expect(await sessionsLeft()).toEqual(['d0', 's3', 's4']);
      expect(await store.deleteSessions({ statuses: ['stopped'], keepNewest: 2 })).toBe(0);
      expect(await store.deleteSessions({ statuses: ['stopped'], updatedBefore: '2026-01-01T00:00:04.000Z', keepNewest: 0 })).toBe(1);
      expect(await sessionsLeft()).toEqual(['d0', 's4']);
    });

    it('refuses every call once the store is closed', async () => {
      await store.close();
      await expect(store.listSessions()).rejects.toThrow();
      await expect(store.getSession('s')).rejects.toThrow();
      await expect(store.findSessionByTokenHash('h')).rejects.toThrow();
      await expect(store.saveSession(sessionRecordFixture({ session_id: 's' }))).rejects.toThrow();
      await expect(store.deleteSessions({ statuses: ['stopped'] })).rejects.toThrow();
    });

    it('keeps sessions across a reopen (durable adapters)', async () => {
      const subject = under.subject();
      if (!subject.reopen) {
        expect(subject.reopen).toBeUndefined();
        return;
      }
      const session = sessionRecordFixture({ session_id: 's1', session_token_hash: 'h1' });
      await store.saveSession(session);
      store = await subject.reopen();
      expect(await store.findSessionByTokenHash('h1')).toEqual(session);
      expect(await store.listSessions()).toEqual([session]);
    });
  });
}
