import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { Clock } from '../../../src/application/ports/clock';
import { PruneSessions } from '../../../src/application/sessions/prune-sessions';
import type { SessionStatus } from '../../../src/domain/session';
import { CapturingLogger } from '../../support/capturing-logger';
import { sessionRecordFixture } from '../../support/fixtures';

class FakeClock extends Clock {
  constructor(public ms: number) {
    super();
  }
  now(): number {
    return this.ms;
  }
}

const HOUR = 60 * 60 * 1000;
const T0 = Date.parse('2026-05-01T00:00:00.000Z');

describe('PruneSessions', () => {
  let store: InMemoryPluginStore;
  let clock: FakeClock;
  let logger: CapturingLogger;

  beforeEach(() => {
    store = new InMemoryPluginStore();
    clock = new FakeClock(T0);
    logger = new CapturingLogger();
  });
  afterEach(() => jest.useRealTimers());

  const prune = (retention = { sessionRetentionMs: 24 * HOUR, sessionRetentionMax: 1000 }) => new PruneSessions(store, clock, retention, logger);

  /** A session in `status` last updated `hoursAgo` before the clock's time now. */
  async function save(session_id: string, status: SessionStatus, hoursAgo: number): Promise<void> {
    const at = new Date(clock.ms - hoursAgo * HOUR).toISOString();
    await store.saveSession(sessionRecordFixture({ session_id, status, session_token_hash: `h-${session_id}`, created_at: at, updated_at: at }));
  }
  const left = async () => (await store.listSessions()).map((s) => s.session_id).sort();

  it('asked, removes every stopped session, and keeps dead, live and starting ones', async () => {
    await save('stopped-1', 'stopped', 0);
    await save('stopped-2', 'stopped', 100);
    await save('dead', 'dead', 100);
    await save('live', 'live', 100);
    await save('starting', 'starting', 100);
    expect(await prune().execute()).toBe(2);
    expect(await left()).toEqual(['dead', 'live', 'starting']);
  });

  it('asked with an age, removes only the sessions stopped longer ago than that', async () => {
    await save('stopped-now', 'stopped', 0);
    await save('stopped-2h', 'stopped', 2);
    await save('stopped-30m', 'stopped', 0.5);
    expect(await prune().execute(HOUR)).toBe(1);
    expect(await left()).toEqual(['stopped-30m', 'stopped-now']);
  });

  it('enforces the retention: stopped and dead sessions past its age, then the oldest stopped past its count', async () => {
    await save('stopped-25h', 'stopped', 25);
    await save('dead-25h', 'dead', 25);
    await save('live-25h', 'live', 25);
    await save('dead-1h', 'dead', 1);
    await save('stopped-3h', 'stopped', 3);
    await save('stopped-2h', 'stopped', 2);
    await save('stopped-1h', 'stopped', 1);
    expect(await prune({ sessionRetentionMs: 24 * HOUR, sessionRetentionMax: 2 }).enforce()).toBe(3);
    expect(await left()).toEqual(['dead-1h', 'live-25h', 'stopped-1h', 'stopped-2h']);
  });

  it('prunes at start, then again as the clock passes the retention, and not after dispose', async () => {
    jest.useFakeTimers();
    const pruning = prune({ sessionRetentionMs: HOUR, sessionRetentionMax: 1000 });
    await save('old', 'stopped', 2);
    await save('fresh', 'stopped', 0);
    await pruning.start();
    expect(await left()).toEqual(['fresh']);
    expect(logger.records.some((r) => r.message === 'sessions past retention removed' && r.fields.removed === 1)).toBe(true);

    clock.ms += 2 * HOUR;
    await jest.advanceTimersByTimeAsync(HOUR);
    expect(await left()).toEqual([]);

    await save('after-dispose', 'stopped', 5);
    await pruning.dispose();
    await jest.advanceTimersByTimeAsync(2 * HOUR);
    expect(await left()).toEqual(['after-dispose']);
  });

  it('removes at start, then periodically, the approval requests settled past their retention; never a pending one', async () => {
    jest.useFakeTimers();
    const DAY = 24 * HOUR;
    /** A request created `hoursAgo` before now, expiring five minutes later, in `state`. */
    const held = async (id: string, hoursAgo: number, state: 'pending' | 'approved' | 'denied' | 'expired' | 'withdrawn'): Promise<void> => {
      const created = clock.ms - hoursAgo * HOUR;
      await store.addApprovalRequest({
        id,
        session_id: 's1',
        task_id: 't1',
        workspace_id: 'prod',
        profile: 'default',
        tool: 'kandev_git_delete_branch',
        plugin_id: 'git',
        arguments_sha256: 'a'.repeat(64),
        created_at: new Date(created).toISOString(),
        expires_at: new Date(created + 5 * 60_000).toISOString(),
        state: 'pending',
        decided_by: null,
        reason: null,
        holder: null,
      });
      if (state !== 'pending')
        await store.settleApprovalRequest(id, { state, decided_by: state === 'approved' || state === 'denied' ? 'admin' : null, reason: null });
    };
    const kept = async (ids: string[]) => (await Promise.all(ids.map((id) => store.getApprovalRequest(id)))).flatMap((r) => (r ? [r.id] : []));
    const all = ['approved-8d', 'denied-8d', 'expired-8d', 'withdrawn-8d', 'pending-8d', 'approved-1d'];
    await held('approved-8d', 8 * 24, 'approved');
    await held('denied-8d', 8 * 24, 'denied');
    await held('expired-8d', 8 * 24, 'expired');
    await held('withdrawn-8d', 8 * 24, 'withdrawn');
    await held('pending-8d', 8 * 24, 'pending');
    await held('approved-1d', 24, 'approved');
    const pruning = new PruneSessions(store, clock, { sessionRetentionMs: DAY, sessionRetentionMax: 1000, approvalRetentionMs: 7 * DAY }, logger, store);
    await pruning.start();
    expect(await kept(all)).toEqual(['pending-8d', 'approved-1d']);
    expect(logger.records.some((r) => r.message === 'approval requests past retention removed' && r.fields.removed === 4)).toBe(true);

    clock.ms += 7 * DAY;
    await jest.advanceTimersByTimeAsync(5 * 60_000);
    expect(await kept(all)).toEqual(['pending-8d']);
    await pruning.dispose();
  });

  it('logs a failing pass without failing the start', async () => {
    await store.close();
    await expect(prune().start()).resolves.toBeUndefined();
    expect(logger.records.some((r) => r.message === 'removing sessions past retention failed')).toBe(true);
    await prune().dispose();
  });
});
