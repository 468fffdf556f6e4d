import type { PluginCall, PluginCallContext, PluginInstance, PluginLaunchSpec, PluginRuntime } from '../../src/application/ports/plugin-runtime';
import { InvocationError, PluginStartError } from '../../src/domain/errors';
import { StatusRecorder } from '../support/status-recorder';

/** What an adapter provides to run the PluginRuntime contract. */
/**
 * The supervision numbers every fixture's runtime is created with, small so the crash, give-up
 * and stable-reset cases stay fast; the rules are the contract's.
 */
export const FAST_TEST_SUPERVISION = { restartBackoffMs: 20, maxRestarts: 3, stableResetMs: 600 };

export interface RuntimeFixture {
  /** Created with FAST_TEST_SUPERVISION. */
  runtime: PluginRuntime;
  /** A launch spec for a plugin with tools: echo (returns {arguments, context} as
   * structured content), slow ({ms}: waits ms or until aborted), crash (exits mid-call). */
  wellBehaved(): PluginLaunchSpec | Promise<PluginLaunchSpec>;
  /** A launch spec for a plugin that never becomes ready. */
  failsToStart(): PluginLaunchSpec | Promise<PluginLaunchSpec>;
  /** From now on every start of `spec` fails (its restarts, say). */
  refuseStarts(spec: PluginLaunchSpec): void;
  /** Optional: whether a process with this pid still runs (checked after stop). */
  isAlive?(pid: number): boolean;
  cleanup(): Promise<void>;
}

export type RuntimeFixtureFactory = () => RuntimeFixture | Promise<RuntimeFixture>;

export const SAMPLE_CONTEXT: PluginCallContext = {
  task_id: 'task-7',
  session_id: 'session-7',
  workspace_id: 'ws-7',
  surface: 'kanban-task',
  profile: 'reviewer',
};

/** A call with the contract's context; override any field. */
export function contractCall(localName: string, args: unknown, overrides: Partial<PluginCall> = {}): PluginCall {
  return {
    invocationId: `inv-${Math.random().toString(16).slice(2)}`,
    localName,
    argumentsJson: JSON.stringify(args),
    context: SAMPLE_CONTEXT,
    timeoutMs: 5000,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** A hostGrant for a spec that records each grant it hands out and whether it was released. */
function grantLedger() {
  const grants: Array<{ token: string; released: boolean }> = [];
  const hostGrant = async () => {
    const entry = { token: `host-token-${grants.length + 1}`, released: false };
    grants.push(entry);
    return { address: 'unix:/nonexistent/host.sock', token: entry.token, admit: () => () => undefined, release: async () => void (entry.released = true) };
  };
  return { grants, hostGrant };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function invocationCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof InvocationError) return error.code;
    throw error;
  }
  throw new Error('the call succeeded, a failure was expected');
}

/**
 * The PluginRuntime contract, run with `describe.each` over `[name, factory]` rows: the
 * in-process fake and the gRPC subprocess runtime both pass it.
 */
export function describePluginRuntimeContract(rows: Array<[string, RuntimeFixtureFactory]>, testTimeoutMs = 20000): void {
  describe.each(rows)('PluginRuntime contract: %s', (_name, factory) => {
    let fixture: RuntimeFixture;
    let runtime: PluginRuntime;
    let recorder: StatusRecorder;

    beforeEach(async () => {
      fixture = await factory();
      runtime = fixture.runtime;
      recorder = new StatusRecorder(runtime);
    });

    afterEach(async () => {
      recorder.dispose();
      await runtime.stopAll();
      await fixture.cleanup();
    });

    async function startWellBehaved(): Promise<PluginInstance> {
      return runtime.start(await fixture.wellBehaved());
    }

    it(
      'starts an instance with a pid, for the plugin and version it was given',
      async () => {
        const spec = await fixture.wellBehaved();
        const instance = await runtime.start(spec);
        expect(instance.pid()).toEqual(expect.any(Number));
        expect(instance.pluginId).toBe(spec.pluginId);
        expect(instance.version).toBe(spec.version);
      },
      testTimeoutMs,
    );

    it(
      'passes arguments and context to the plugin exactly',
      async () => {
        const instance = await startWellBehaved();
        const args = { text: 'héllo ✓', n: 3, nested: { list: [1, null, true] } };
        const result = await runtime.invoke(instance, contractCall('echo', args));
        expect(result.isError).toBe(false);
        expect(result.text.trim()).not.toBe('');
        expect(JSON.parse(result.structuredContentJson)).toEqual({ arguments: args, context: SAMPLE_CONTEXT });
      },
      testTimeoutMs,
    );

    it(
      'runs two instances of one plugin side by side (the upgrade overlap)',
      async () => {
        const first = await startWellBehaved();
        const second = await startWellBehaved();
        expect(second.instanceId).not.toBe(first.instanceId);
        expect(second.pid()).not.toBe(first.pid());
        const [a, b] = await Promise.all([
          runtime.invoke(first, contractCall('echo', { which: 1 })),
          runtime.invoke(second, contractCall('echo', { which: 2 })),
        ]);
        expect(JSON.parse(a.structuredContentJson).arguments).toEqual({ which: 1 });
        expect(JSON.parse(b.structuredContentJson).arguments).toEqual({ which: 2 });
      },
      testTimeoutMs,
    );

    it(
      'refuses a plugin that never becomes ready with PluginStartError and leaves nothing',
      async () => {
        const spec = await fixture.failsToStart();
        const failure = await runtime.start(spec).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(PluginStartError);
        expect(Array.isArray((failure as PluginStartError).stderr)).toBe(true);
        expect((failure as PluginStartError).stderr.length).toBeLessThanOrEqual(20);
        // Nothing supervised is left behind: no status event ever names it, and the runtime
        // still starts other plugins.
        const instance = await startWellBehaved();
        expect(instance.pid()).toEqual(expect.any(Number));
        expect(
          recorder.events.filter(
            (e) => e.instance.pluginId === spec.pluginId && e.instance.version === spec.version && e.instance.instanceId !== instance.instanceId,
          ),
        ).toEqual([]);
      },
      testTimeoutMs,
    );

    it(
      'abandons a call past its deadline with TOOL_TIMEOUT, and the plugin keeps serving',
      async () => {
        const instance = await startWellBehaved();
        const started = Date.now();
        const code = await invocationCode(runtime.invoke(instance, contractCall('slow', { ms: 10000 }, { timeoutMs: 150 })));
        expect(code).toBe('TOOL_TIMEOUT');
        expect(Date.now() - started).toBeLessThan(5000);
        const after = await runtime.invoke(instance, contractCall('echo', { again: true }));
        expect(JSON.parse(after.structuredContentJson).arguments).toEqual({ again: true });
      },
      testTimeoutMs,
    );

    it(
      'cancels a call when its signal aborts, with CANCELLED',
      async () => {
        const instance = await startWellBehaved();
        const controller = new AbortController();
        const call = runtime.invoke(instance, contractCall('slow', { ms: 10000 }, { signal: controller.signal }));
        setTimeout(() => controller.abort(), 50);
        const started = Date.now();
        expect(await invocationCode(call)).toBe('CANCELLED');
        expect(Date.now() - started).toBeLessThan(5000);
      },
      testTimeoutMs,
    );

    it(
      'refuses a call whose signal is already aborted with CANCELLED',
      async () => {
        const instance = await startWellBehaved();
        const controller = new AbortController();
        controller.abort();
        expect(await invocationCode(runtime.invoke(instance, contractCall('echo', {}, { signal: controller.signal })))).toBe('CANCELLED');
      },
      testTimeoutMs,
    );

    it(
      'fails a call whose process dies with PLUGIN_CRASHED once, reports error, then restarts to active',
      async () => {
        const instance = await startWellBehaved();
        const firstPid = instance.pid();
        expect(await invocationCode(runtime.invoke(instance, contractCall('crash', {})))).toBe('PLUGIN_CRASHED');
        const errorEvent = await recorder.waitFor((e) => e.instance.instanceId === instance.instanceId && e.status === 'error', 10000, 'error event');
        expect(errorEvent.reason).toEqual(expect.any(String));
        expect(errorEvent.gaveUp).toBe(false);
        const errorIndex = recorder.events.indexOf(errorEvent);
        const activeEvent = await recorder.waitFor(
          (e, index) => index > errorIndex && e.instance.instanceId === instance.instanceId && e.status === 'active',
          10000,
          'active event after the restart',
        );
        expect(activeEvent.restartCount).toBeGreaterThanOrEqual(1);
        expect(instance.pid()).toEqual(expect.any(Number));
        expect(instance.pid()).not.toBe(firstPid);
        const result = await runtime.invoke(instance, contractCall('echo', { back: true }));
        expect(JSON.parse(result.structuredContentJson).arguments).toEqual({ back: true });
      },
      testTimeoutMs,
    );

    it(
      'gives up after its last failed restart: the event says so, calls are PLUGIN_NOT_ACTIVE, nothing restarts it',
      async () => {
        const spec = await fixture.wellBehaved();
        const instance = await runtime.start(spec);
        fixture.refuseStarts(spec);
        expect(await invocationCode(runtime.invoke(instance, contractCall('crash', {})))).toBe('PLUGIN_CRASHED');
        const last = await recorder.waitFor((e) => e.instance.instanceId === instance.instanceId && e.gaveUp, 10000, 'the give-up');
        const mine = recorder.events.filter((e) => e.instance.instanceId === instance.instanceId);
        // The crash, then one error per failed restart; the last one gives up.
        expect(mine.map((e) => [e.status, e.gaveUp])).toEqual([
          ['error', false],
          ...Array.from({ length: FAST_TEST_SUPERVISION.maxRestarts - 1 }, () => ['error', false]),
          ['error', true],
        ]);
        expect(last.restartCount).toBe(FAST_TEST_SUPERVISION.maxRestarts);
        expect(instance.pid()).toBeUndefined();
        expect(await invocationCode(runtime.invoke(instance, contractCall('echo', {})))).toBe('PLUGIN_NOT_ACTIVE');
        // Twice the next backoff would have been: still nothing after the give-up.
        await new Promise((resolve) => setTimeout(resolve, 2 * FAST_TEST_SUPERVISION.restartBackoffMs * 2 ** FAST_TEST_SUPERVISION.maxRestarts));
        expect(recorder.events.filter((e) => e.instance.instanceId === instance.instanceId)).toHaveLength(mine.length);
      },
      testTimeoutMs,
    );

    it(
      'counts restarts from zero again once a process stayed active for the stable period',
      async () => {
        const instance = await startWellBehaved();
        const activeAfter = async (from: number) =>
          recorder.waitFor((e, index) => index >= from && e.instance.instanceId === instance.instanceId && e.status === 'active', 10000, 'active again');
        expect(await invocationCode(runtime.invoke(instance, contractCall('crash', {})))).toBe('PLUGIN_CRASHED');
        const first = await activeAfter(0);
        expect(first.restartCount).toBe(1);
        // Active for longer than the stable period: the next crash is a first restart again.
        await new Promise((resolve) => setTimeout(resolve, FAST_TEST_SUPERVISION.stableResetMs + 200));
        const seen = recorder.events.length;
        expect(await invocationCode(runtime.invoke(instance, contractCall('crash', {})))).toBe('PLUGIN_CRASHED');
        const second = await activeAfter(seen);
        expect(second.restartCount).toBe(1);
      },
      testTimeoutMs,
    );

    it(
      'stops an instance: a stopped event, its process gone, later calls PLUGIN_NOT_ACTIVE, stop again is harmless',
      async () => {
        const instance = await startWellBehaved();
        const pid = instance.pid()!;
        await runtime.stop(instance);
        await recorder.waitFor((e) => e.instance.instanceId === instance.instanceId && e.status === 'stopped', 5000, 'stopped event');
        if (fixture.isAlive) expect(fixture.isAlive(pid)).toBe(false);
        expect(await invocationCode(runtime.invoke(instance, contractCall('echo', {})))).toBe('PLUGIN_NOT_ACTIVE');
        await runtime.stop(instance);
        expect(recorder.events.filter((e) => e.instance.instanceId === instance.instanceId && e.status === 'stopped')).toHaveLength(1);
      },
      testTimeoutMs,
    );

    it(
      'stopping one instance leaves another of the same plugin serving',
      async () => {
        const old = await startWellBehaved();
        const fresh = await startWellBehaved();
        await runtime.stop(old);
        const result = await runtime.invoke(fresh, contractCall('echo', { still: 'here' }));
        expect(JSON.parse(result.structuredContentJson).arguments).toEqual({ still: 'here' });
      },
      testTimeoutMs,
    );

    it(
      'asks for a Host grant at every process start, restarts included, and releases each once its process is gone',
      async () => {
        const ledger = grantLedger();
        const instance = await runtime.start({ ...(await fixture.wellBehaved()), hostGrant: ledger.hostGrant });
        expect(ledger.grants).toEqual([{ token: 'host-token-1', released: false }]);
        expect(await invocationCode(runtime.invoke(instance, contractCall('crash', {})))).toBe('PLUGIN_CRASHED');
        await recorder.waitFor((e) => e.instance.instanceId === instance.instanceId && e.status === 'active', 10000, 'the restart');
        await until(() => ledger.grants[0]!.released, 5000, "the crashed process's grant to be released");
        expect(ledger.grants).toEqual([
          { token: 'host-token-1', released: true },
          { token: 'host-token-2', released: false },
        ]);
        await runtime.stop(instance);
        await until(() => ledger.grants[1]!.released, 5000, "the stopped process's grant to be released");
      },
      testTimeoutMs,
    );

    it(
      'releases the Host grant of a start that fails, and fails a start whose grant cannot be had',
      async () => {
        const ledger = grantLedger();
        await expect(runtime.start({ ...(await fixture.failsToStart()), hostGrant: ledger.hostGrant })).rejects.toBeInstanceOf(PluginStartError);
        expect(ledger.grants).toHaveLength(1);
        await until(() => ledger.grants[0]!.released, 5000, "the failed start's grant to be released");
        const refused = runtime.start({ ...(await fixture.wellBehaved()), hostGrant: () => Promise.reject(new Error('no socket')) });
        await expect(refused).rejects.toBeInstanceOf(PluginStartError);
        await expect(refused).rejects.toThrow(/no socket/);
      },
      testTimeoutMs,
    );

    it(
      'checks the installed files before every process start, restarts included; a failed check fails that start, naming the file, before any grant or process',
      async () => {
        const ledger = grantLedger();
        let checks = 0;
        let refuse = false;
        const checkFiles = async () => {
          checks += 1;
          if (refuse) throw new Error('installed file "bin/plugin" changed after install');
        };
        const instance = await runtime.start({ ...(await fixture.wellBehaved()), hostGrant: ledger.hostGrant, checkFiles });
        expect(checks).toBe(1);
        refuse = true;
        expect(await invocationCode(runtime.invoke(instance, contractCall('crash', {})))).toBe('PLUGIN_CRASHED');
        const failed = await recorder.waitFor(
          (e) => e.instance.instanceId === instance.instanceId && e.status === 'error' && e.cause === 'start_failed',
          10000,
          'a refused restart',
        );
        expect(failed.reason).toContain('installed file "bin/plugin" changed after install');
        expect(checks).toBeGreaterThanOrEqual(2);
        expect(ledger.grants).toHaveLength(1);
        expect(instance.pid()).toBeUndefined();
        await runtime.stop(instance);

        const refused = runtime.start({ ...(await fixture.wellBehaved()), hostGrant: ledger.hostGrant, checkFiles });
        await expect(refused).rejects.toBeInstanceOf(PluginStartError);
        await expect(refused).rejects.toThrow('installed file "bin/plugin" changed after install');
        expect(ledger.grants).toHaveLength(1);
      },
      testTimeoutMs,
    );

    it(
      'resolves the granted reach before every process start, after the files check and before any grant or process; a rejection fails that start with its reason',
      async () => {
        const ledger = grantLedger();
        const order: string[] = [];
        let refuse = false;
        const spec = {
          ...(await fixture.wellBehaved()),
          hostGrant: () => (order.push('grant'), ledger.hostGrant()),
          checkFiles: async () => void order.push('files'),
          permissions: async () => {
            order.push('permissions');
            if (refuse) throw new Error('permissions.read_paths[0]: /srv/gone does not exist');
            return { network: false, readPaths: [], writePaths: [], env: [] };
          },
        };
        const instance = await runtime.start(spec);
        expect(order).toEqual(['files', 'permissions', 'grant']);
        await runtime.stop(instance);
        refuse = true;
        order.length = 0;
        const refused = runtime.start(spec);
        await expect(refused).rejects.toBeInstanceOf(PluginStartError);
        await expect(refused).rejects.toThrow(`plugin ${spec.pluginId} ${spec.version} failed to start: permissions.read_paths[0]: /srv/gone does not exist`);
        expect(order).toEqual(['files', 'permissions']);
        expect(ledger.grants).toHaveLength(1);
      },
      testTimeoutMs,
    );

    it(
      'stopAll stops every instance',
      async () => {
        const a = await startWellBehaved();
        const b = await startWellBehaved();
        const pids = [a.pid()!, b.pid()!];
        await runtime.stopAll();
        for (const instance of [a, b]) {
          await recorder.waitFor((e) => e.instance.instanceId === instance.instanceId && e.status === 'stopped', 5000, 'stopped event');
          expect(await invocationCode(runtime.invoke(instance, contractCall('echo', {})))).toBe('PLUGIN_NOT_ACTIVE');
        }
        if (fixture.isAlive) for (const pid of pids) expect(fixture.isAlive(pid)).toBe(false);
      },
      testTimeoutMs,
    );
  });
}
