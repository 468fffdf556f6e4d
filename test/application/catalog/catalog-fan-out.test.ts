import type { CatalogPush, PushAnswer } from '../../../src/application/ports/catalog-publisher';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { waitUntil } from '../../support/invocation';

function kind(push: CatalogPush): string {
  return 'snapshot' in push ? `full@${push.snapshot.revision}` : `delta ${push.delta.baseRevision}->${push.delta.revision}`;
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

  /** A session whose agentctl linked and pulled the current snapshot, as it does after its hello. */
  function linkedAndPulled(sessionId: string, h0: BackendHarness = h): void {
    h0.publisher.link(sessionId);
    h0.fanOut.serve(sessionId, { workspace: 'ws-1', profile: 'default', surface: 'kanban-task' });
  }

  it('pushes each change to every linked session, as a delta on the revision each pulled, and in full to one that said hello and never pulled', async () => {
    linkedAndPulled('s1');
    linkedAndPulled('s2');
    h.publisher.link('never-pulled');
    h.fanOut.linked('never-pulled', { workspace: 'ws-1', profile: 'default', surface: 'kanban-task' });
    // A link without a hello is not the fan-out's yet.
    h.publisher.link('no-hello');
    const base = h.catalog.current().revision;

    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await h.fanOut.whenIdle();

    const revision = h.catalog.current().revision;
    expect(h.publisher.rounds.map((r) => [r.sessionIds.sort(), kind(r.push)])).toEqual(
      expect.arrayContaining([
        [['s1', 's2'], `delta ${base}->${revision}`],
        [['never-pulled'], `full@${revision}`],
      ]),
    );
    expect(h.publisher.rounds).toHaveLength(2);
    const delta = h.publisher.rounds.find((r) => 'delta' in r.push)!.push as { delta: { upsert: Array<{ exposed_name: string }>; remove: string[] } };
    expect(delta.delta.upsert.map((t) => t.exposed_name)).toEqual(['kandev_a_run']);
    expect(delta.delta.remove).toEqual([]);
  });

  it('serialises one push for every target holding the same revision, and sends nothing to one that holds the newest', async () => {
    for (let i = 0; i < 50; i += 1) linkedAndPulled(`s${i}`);
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await h.fanOut.whenIdle();
    expect(h.publisher.rounds).toHaveLength(1);
    expect(h.publisher.rounds[0]!.sessionIds).toHaveLength(50);
    // A session that linked and pulled after the change already holds it.
    linkedAndPulled('late');
    await h.fanOut.whenIdle();
    expect(h.publisher.delivered('late')).toEqual([]);
  });

  it('sends the full snapshot to a target that answers a delta does not fit what it holds', async () => {
    linkedAndPulled('s1');
    h.publisher.handle('s1', (_id, push): PushAnswer =>
      'delta' in push
        ? { outcome: 'base_mismatch', generation: push.delta.generation, revision: 1 }
        : { outcome: 'applied', generation: push.snapshot.generation, revision: push.snapshot.revision },
    );
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await h.fanOut.whenIdle();
    expect(h.publisher.attempts.map((a) => kind(a.push))).toEqual([`delta 1->2`, `full@2`]);
    expect(h.publisher.delivered('s1')).toEqual([2]);
  });

  it('never blocks the writer: an install answers while a push hangs', async () => {
    linkedAndPulled('s1');
    let release: () => void = () => undefined;
    h.publisher.handle(
      's1',
      (_id, push) =>
        new Promise(
          (resolve) =>
            (release = () => resolve({ outcome: 'applied', generation: 'g', revision: 'delta' in push ? push.delta.revision : push.snapshot.revision })),
        ),
    );
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    expect(h.publisher.delivered('s1')).toEqual([]);
    release();
    await h.fanOut.whenIdle();
    expect(h.publisher.delivered('s1')).toEqual([h.catalog.current().revision]);
  });

  it('coalesces a burst: while a round runs, later changes become one round with the newest snapshot', async () => {
    linkedAndPulled('slow');
    linkedAndPulled('fast');
    const gates: Array<() => void> = [];
    h.publisher.handle(
      'slow',
      (_id, push) =>
        new Promise((resolve) =>
          gates.push(() =>
            resolve({
              outcome: 'applied',
              generation: h.catalog.current().generation,
              revision: 'delta' in push ? push.delta.revision : push.snapshot.revision,
            }),
          ),
        ),
    );

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

    expect(h.publisher.delivered('fast')).toEqual([first, newest]);
    expect(h.publisher.delivered('slow')).toEqual([first, newest]);
  });

  it('retries a failing target with backoff until it takes the snapshot', async () => {
    linkedAndPulled('s1');
    linkedAndPulled('s2');
    h.publisher.failNext('s1', 3);
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await h.fanOut.whenIdle();
    const s1 = h.publisher.attempts.filter((a) => a.sessionId === 's1');
    expect(s1.map((a) => a.ok)).toEqual([false, false, false, true]);
    expect(h.publisher.delivered('s1')).toEqual([h.catalog.current().revision]);
    expect(h.publisher.attempts.filter((a) => a.sessionId === 's2')).toHaveLength(1);
  });

  it('retries the targets that failed in one push together, in one push', async () => {
    for (const id of ['s1', 's2', 's3', 'fine']) linkedAndPulled(id);
    for (const id of ['s1', 's2', 's3']) h.publisher.failNext(id, 1);
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await h.fanOut.whenIdle();
    const retries = h.publisher.rounds.slice(1).map((r) => [...r.sessionIds].sort());
    expect(retries).toEqual([['s1', 's2', 's3']]);
    for (const id of ['s1', 's2', 's3', 'fine']) expect(h.publisher.delivered(id)).toEqual([h.catalog.current().revision]);
  });

  it('stops retrying a session whose link is gone', async () => {
    linkedAndPulled('gone');
    h.publisher.failNext('gone', Infinity);
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    await waitUntil(() => h.publisher.attempts.length >= 2, 2000, 'a retry');
    h.publisher.unlink('gone');
    h.fanOut.unlinked('gone');
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
    linkedAndPulled('s1', slowRetry);
    slowRetry.publisher.failNext('s1', 1);
    await slowRetry.install.execute({ path: slowRetry.addEchoPackage('a', '1.0.0', ['run']) });
    const older = slowRetry.catalog.current().revision;
    await waitUntil(() => slowRetry.publisher.attempts.length === 1, 2000, 'the failed push');
    await slowRetry.install.execute({ path: slowRetry.addEchoPackage('b', '1.0.0', ['run']) });
    await slowRetry.fanOut.whenIdle();
    const newest = slowRetry.catalog.current().revision;
    expect(slowRetry.publisher.delivered('s1')).toEqual([newest]);
    expect(slowRetry.publisher.attempts.filter((a) => kind(a.push).endsWith(`${older}`)).map((a) => a.ok)).toEqual([false]);
    await slowRetry.shutdown();
  });
});
