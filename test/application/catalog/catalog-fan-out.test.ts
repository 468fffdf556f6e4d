import type { ApplyOutcome } from '../../../src/application/ports/catalog-publisher';
import type { CatalogSnapshot } from '../../../src/domain/catalog';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { sessionRecordFixture } from '../../support/fixtures';
import { waitUntil } from '../../support/invocation';

async function liveSession(h: BackendHarness, id: string): Promise<void> {
  await h.store.saveSession(sessionRecordFixture({ session_id: id, session_token_hash: `h-${id}`, status: 'live', control_url: `http://127.0.0.1/${id}`, control_token: `ctl-${id}` }));
}

function revisions(snapshots: CatalogSnapshot[]): number[] {
  return snapshots.map((s) => s.revision);
}

describe('CatalogFanOut', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
    h.fanOut.execute();
  });

  afterEach(async () => {
    await h.shutdown();
  });

  it('pushes each change to every live session with a control API, with its control token', async () => {
    await liveSession(h, 's1');
    await liveSession(h, 's2');
    await h.store.saveSession(sessionRecordFixture({ session_id: 'starting', session_token_hash: 'x1', status: 'starting', control_url: 'http://127.0.0.1/x', control_token: 't' }));
    await h.store.saveSession(sessionRecordFixture({ session_id: 'no-url', session_token_hash: 'x2', status: 'live' }));
    await h.store.saveSession(sessionRecordFixture({ session_id: 'stopped', session_token_hash: 'x3', status: 'stopped', control_url: 'http://127.0.0.1/y', control_token: 't' }));

    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await h.fanOut.whenIdle();

    const pushedTo = h.publisher.attempts.map((a) => a.target.sessionId).sort();
    expect(pushedTo).toEqual(['s1', 's2']);
    expect(h.publisher.attempts.find((a) => a.target.sessionId === 's1')?.target).toEqual({ sessionId: 's1', controlUrl: 'http://127.0.0.1/s1', controlToken: 'ctl-s1' });
    expect(h.publisher.delivered('s1')).toEqual([h.catalog.current()]);
  });

  it('never blocks the writer: an install answers while a push hangs', async () => {
    await liveSession(h, 's1');
    let release: () => void = () => undefined;
    h.publisher.handle('s1', () => new Promise((resolve) => (release = () => resolve('applied'))));
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    expect(h.publisher.delivered('s1')).toEqual([]);
    release();
    await h.fanOut.whenIdle();
    expect(revisions(h.publisher.delivered('s1'))).toEqual([h.catalog.current().revision]);
  });

  it('coalesces a burst: while a round runs, later changes become one round with the newest snapshot', async () => {
    await liveSession(h, 'slow');
    await liveSession(h, 'fast');
    const gates: Array<() => void> = [];
    h.publisher.handle('slow', () => new Promise((resolve) => gates.push(() => resolve('applied'))));

    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    const first = h.catalog.current().revision;
    await waitUntil(() => gates.length === 1, 2000, 'the first push is in flight');
    for (const id of ['b', 'c', 'd']) await h.install.execute({ path: h.addEchoPackage(id, '1.0.0', ['run']) });
    const newest = h.catalog.current().revision;
    expect(newest).toBe(first + 3);

    gates.shift()!();
    await waitUntil(() => gates.length === 1, 2000, 'the second round reached the slow target');
    gates.shift()!();
    await h.fanOut.whenIdle();

    expect(revisions(h.publisher.delivered('fast'))).toEqual([first, newest]);
    expect(revisions(h.publisher.delivered('slow'))).toEqual([first, newest]);
  });

  it('retries a failing target with backoff until it takes the snapshot', async () => {
    await liveSession(h, 's1');
    await liveSession(h, 's2');
    h.publisher.failNext('s1', 3);
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await h.fanOut.whenIdle();
    const s1 = h.publisher.attempts.filter((a) => a.target.sessionId === 's1');
    expect(s1.map((a) => a.ok)).toEqual([false, false, false, true]);
    expect(h.publisher.delivered('s1')).toEqual([h.catalog.current()]);
    expect(h.publisher.attempts.filter((a) => a.target.sessionId === 's2')).toHaveLength(1);
  });

  it('stops retrying a session that is no longer live', async () => {
    await liveSession(h, 'gone');
    h.publisher.failNext('gone', Infinity);
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await waitUntil(() => h.publisher.attempts.length >= 2, 2000, 'a retry');
    await h.store.saveSession({ ...(await h.store.getSession('gone'))!, status: 'dead' });
    await h.fanOut.whenIdle();
    const attempts = h.publisher.attempts.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.publisher.attempts).toHaveLength(attempts);
    expect(h.publisher.delivered('gone')).toEqual([]);
  });

  it('drops retries of a snapshot a newer one superseded, and delivers the newer one', async () => {
    // A long first retry delay, so the newer change surely comes first.
    const slowRetry = await createBackendHarness({ fanOut: { retryInitialMs: 5000 } });
    slowRetry.fanOut.execute();
    liveSession(slowRetry, 's1');
    slowRetry.publisher.failNext('s1', 1);
    await slowRetry.install.execute({ path: slowRetry.addEchoPackage('a', '1.0.0', ['run']) });
    const older = slowRetry.catalog.current().revision;
    await waitUntil(() => slowRetry.publisher.attempts.length === 1, 2000, 'the failed push');
    await slowRetry.install.execute({ path: slowRetry.addEchoPackage('b', '1.0.0', ['run']) });
    await slowRetry.fanOut.whenIdle();
    const newest = slowRetry.catalog.current().revision;
    expect(revisions(slowRetry.publisher.delivered('s1'))).toEqual([newest]);
    expect(slowRetry.publisher.attempts.filter((a) => a.snapshot.revision === older).map((a) => a.ok)).toEqual([false]);
    await slowRetry.shutdown();
  });

  it('bounds the pushes in flight', async () => {
    const fanOutHarness = await createBackendHarness({ fanOut: { concurrency: 2 } });
    fanOutHarness.fanOut.execute();
    let inFlight = 0;
    let peak = 0;
    for (let i = 0; i < 6; i += 1) {
      liveSession(fanOutHarness, `s${i}`);
      fanOutHarness.publisher.handle(`s${i}`, async (): Promise<ApplyOutcome> => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return 'applied';
      });
    }
    await fanOutHarness.install.execute({ path: fanOutHarness.addEchoPackage('a', '1.0.0', ['run']) });
    await fanOutHarness.fanOut.whenIdle();
    expect(peak).toBe(2);
    expect(fanOutHarness.publisher.attempts).toHaveLength(6);
    await fanOutHarness.shutdown();
  });
});
