import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { invocationError, recordedCalls, toolCall, useRuntimeHarness } from './support/runtime-harness';

// Real processes on a shared 2-core machine: generous per-test bounds, tight assertions inside.
jest.setTimeout(20_000);

/** Supervision (docs/lifecycle.md): an exit or failing health is noticed, reported and restarted. */
describe('GrpcPluginRuntime supervision', () => {
  const h = useRuntimeHarness();

  it('fails a call whose plugin exits mid-call exactly once, reports error at once, restarts to active', async () => {
    // Health checks far apart: only the child's exit event can notice the crash here.
    h.useOptions({ healthIntervalMs: 60_000 });
    const spec = h.sdkSpec();
    const instance = await h.start(spec);
    const firstPid = instance.pid();
    const call = toolCall('crash');
    const error = await invocationError(h.runtime.invoke(instance, call));
    const failedAt = Date.now();
    expect(error.code).toBe('PLUGIN_CRASHED');

    const crashed = await h.recorder.waitFor((e) => e.status === 'error', 1000, 'the error event');
    expect(crashed.reason).toContain('exit code 3');
    expect(crashed.cause).toBe('exited');
    expect(crashed.gaveUp).toBe(false);
    expect(Date.now() - failedAt).toBeLessThan(1000);
    const back = await h.recorder.waitFor((e) => e.status === 'active', 5000, 'the active event');
    expect(back.restartCount).toBe(1);
    expect(instance.pid()).toEqual(expect.any(Number));
    expect(instance.pid()).not.toBe(firstPid);

    // The crashing call reached the plugin once and was never re-sent, even after the restart.
    const next = toolCall('count');
    await h.runtime.invoke(instance, next);
    expect(recordedCalls(spec.dataDir)).toEqual([call.invocationId, next.invocationId]);
    expect(h.recorder.events.map((e) => e.status)).toEqual(['error', 'active']);
  });

  it('restarts a plugin that stops answering SERVING after three failed health checks', async () => {
    h.useOptions({ healthIntervalMs: 50 });
    const instance = await h.start(h.rawSpec('unhealthy-plugin.js', ['not-serving'], 'unhealthy.plugin'));
    const firstPid = instance.pid();
    const crashed = await h.recorder.waitFor((e) => e.status === 'error', 3000, 'the error event');
    expect(crashed.reason).toContain('failed 3 health checks in a row');
    expect(crashed.cause).toBe('unhealthy');
    await h.recorder.waitFor((e) => e.status === 'active', 3000, 'the active event');
    expect(instance.pid()).not.toBe(firstPid);
    expect(h.seenPids.size).toBe(2);
  });

  it('treats health checks that get no answer within 1 s as failed', async () => {
    h.useOptions({ healthIntervalMs: 50 });
    const instance = await h.start(h.rawSpec('unhealthy-plugin.js', ['hang'], 'hanging.plugin'));
    const started = Date.now();
    const crashed = await h.recorder.waitFor((e) => e.status === 'error', 6000, 'the error event');
    expect(crashed.reason).toContain('DEADLINE_EXCEEDED');
    // Three checks of 1 s each: not before ~3 s, and not much later.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(instance.pid()).toBeUndefined();
  });

  it('gives up after five failed restarts with backoff, stays error, and refuses calls', async () => {
    const spec = h.sdkSpec();
    const instance = await h.start(spec);
    writeFileSync(join(spec.dataDir, 'refuse-start'), '');
    const crashedAt = Date.now();
    process.kill(instance.pid()!, 'SIGKILL');

    const last = await h.recorder.waitFor((e) => e.gaveUp, 10_000, 'the give-up event');
    // 20 + 40 + 80 + 160 + 320 ms of backoff at least.
    expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(620);
    expect(h.recorder.events.map((e) => [e.status, e.restartCount, e.gaveUp])).toEqual([
      ['error', 0, false],
      ['error', 1, false],
      ['error', 2, false],
      ['error', 3, false],
      ['error', 4, false],
      ['error', 5, true],
    ]);
    expect(h.recorder.events.map((e) => e.cause)).toEqual(['exited', 'start_failed', 'start_failed', 'start_failed', 'start_failed', 'start_failed']);
    expect(last.reason).toContain('exited (exit code 2) before its handshake');
    expect(instance.pid()).toBeUndefined();
    const refused = await invocationError(h.runtime.invoke(instance, toolCall('echo')));
    expect(refused.code).toBe('PLUGIN_NOT_ACTIVE');

    // Still down a while later: nothing restarts it until it is started again.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(h.recorder.events).toHaveLength(6);
    await h.runtime.stop(instance);
    expect(h.recorder.events.at(-1)?.status).toBe('stopped');
  });

  it('counts restarts since the plugin was last stable', async () => {
    h.useOptions({ stableResetMs: 300, healthIntervalMs: 60_000 });
    const instance = await h.start(h.sdkSpec());
    const crashAndRecover = async (): Promise<number> => {
      const before = h.recorder.events.length;
      process.kill(instance.pid()!, 'SIGKILL');
      const back = await h.recorder.waitFor((e, i) => i >= before && e.status === 'active', 5000, 'active again');
      return back.restartCount;
    };
    expect(await crashAndRecover()).toBe(1);
    expect(await crashAndRecover()).toBe(2);
    // Active longer than stableResetMs: the count starts over.
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await crashAndRecover()).toBe(1);
  });

  it('stops an instance that is waiting to restart without starting it again', async () => {
    h.useOptions({ restartBackoffMs: 5000 });
    const instance = await h.start(h.sdkSpec());
    process.kill(instance.pid()!, 'SIGKILL');
    await h.recorder.waitFor((e) => e.status === 'error', 2000);
    await h.runtime.stop(instance);
    expect(h.recorder.events.map((e) => e.status)).toEqual(['error', 'stopped']);
    expect(h.seenPids.size).toBe(1);
  });
});
