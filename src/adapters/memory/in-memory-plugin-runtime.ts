import {
  PluginRuntime,
  type PluginCall,
  type PluginCallResult,
  type PluginInstance,
  type PluginLaunchSpec,
  type PluginStatusEvent,
} from '../../application/ports/plugin-runtime';
import { InvocationError, PluginStartError } from '../../domain/errors';
import { isJsonObject, type JsonObject } from '../../domain/json';
import type { SessionIdentity } from '../../domain/session';

/** What a fake plugin's tool sees for one call. */
export interface InMemoryCallContext {
  invocationId: string;
  context: SessionIdentity;
  /** Aborted when the call is cancelled, times out or its instance goes down. */
  signal: AbortSignal;
  /** Makes the instance's process "exit" now (the call fails with PLUGIN_CRASHED). */
  crash(reason?: string): void;
}

export type InMemoryToolHandler = (args: JsonObject, call: InMemoryCallContext) => PluginCallResult | Promise<PluginCallResult>;

/** How a fake plugin registered under an executable path behaves. */
export interface InMemoryPluginBehaviour {
  tools: Record<string, InMemoryToolHandler>;
  /** When set, start() and restarts fail with this PluginStartError. */
  failsToStart?: { message: string; exitCode: number | null; stderr: string[] };
  /** Awaited before each start completes, so a test can hold a start open. */
  beforeStart?: (spec: PluginLaunchSpec) => Promise<void>;
}

export interface InMemoryPluginRuntimeOptions {
  /** First restart delay; it doubles on each attempt (CONTRACT §3). */
  restartBackoffMs?: number;
  maxRestarts?: number;
  /** Active this long before a crash, the restart count starts over. */
  stableAfterMs?: number;
}

interface PendingCall {
  fail(error: InvocationError): void;
}

class FakeInstance implements PluginInstance {
  currentPid: number | undefined;
  state: 'running' | 'down' | 'stopped' = 'running';
  restartCount = 0;
  activeSince = Date.now();
  restartTimer: NodeJS.Timeout | undefined;
  readonly pending = new Set<PendingCall>();

  constructor(
    readonly instanceId: string,
    readonly spec: PluginLaunchSpec,
    pid: number,
  ) {
    this.currentPid = pid;
  }

  get pluginId(): string {
    return this.spec.pluginId;
  }

  get version(): string {
    return this.spec.version;
  }

  pid(): number | undefined {
    return this.currentPid;
  }
}

/**
 * A programmable PluginRuntime with no processes: plugins are registered by executable path
 * with tool handlers, and tests crash instances or fail their health on demand. It emits the
 * same status events as the gRPC runtime, with restart backoff driven by real timers.
 */
export class InMemoryPluginRuntime extends PluginRuntime {
  /** Every call that reached a plugin, in order (a test double's record). */
  readonly calls: Array<{ instanceId: string; call: PluginCall }> = [];
  private readonly behaviours = new Map<string, InMemoryPluginBehaviour>();
  private readonly instances = new Map<string, FakeInstance>();
  private readonly listeners = new Set<(event: PluginStatusEvent) => void>();
  private readonly alivePids = new Set<number>();
  private nextPid = 20000;
  private nextInstance = 1;
  private readonly backoffMs: number;
  private readonly maxRestarts: number;
  private readonly stableAfterMs: number;

  constructor(options: InMemoryPluginRuntimeOptions = {}) {
    super();
    this.backoffMs = options.restartBackoffMs ?? 1000;
    this.maxRestarts = options.maxRestarts ?? 5;
    this.stableAfterMs = options.stableAfterMs ?? 60000;
  }

  /** Registers (or replaces) the behaviour of the plugin whose executable is `executable`. */
  register(executable: string, behaviour: InMemoryPluginBehaviour): void {
    this.behaviours.set(executable, behaviour);
  }

  /** Whether a fake process with this pid runs. */
  isAlive(pid: number): boolean {
    return this.alivePids.has(pid);
  }

  /** The instances started and not yet stopped. */
  runningInstances(): PluginInstance[] {
    return [...this.instances.values()].filter((i) => i.state === 'running');
  }

  /** Makes the instance's process exit: in-flight calls fail, `error`, then restarts. */
  crash(instance: PluginInstance, reason = 'plugin process exited with code 1'): void {
    const fake = this.instances.get(instance.instanceId);
    if (fake?.state === 'running') this.goDown(fake, reason);
  }

  /** As if three health checks in a row failed. */
  failHealth(instance: PluginInstance): void {
    this.crash(instance, 'plugin failed 3 health checks in a row');
  }

  /** Test hook: delivers `event` to listeners as the runtime would (say, a late one). */
  emitStatus(event: PluginStatusEvent): void {
    this.emit(event);
  }

  async start(spec: PluginLaunchSpec): Promise<PluginInstance> {
    const behaviour = this.behaviourFor(spec);
    await behaviour.beforeStart?.(spec);
    this.assertStarts(behaviour);
    const instance = new FakeInstance(`mem-${this.nextInstance++}`, spec, this.spawnPid());
    this.instances.set(instance.instanceId, instance);
    return instance;
  }

  async stop(instance: PluginInstance): Promise<void> {
    const fake = this.instances.get(instance.instanceId);
    if (!fake || fake.state === 'stopped') return;
    clearTimeout(fake.restartTimer);
    fake.state = 'stopped';
    this.killPid(fake);
    this.failPending(fake, new InvocationError('PLUGIN_NOT_ACTIVE', `plugin ${fake.pluginId} was stopped`));
    this.instances.delete(fake.instanceId);
    this.emit({ instance: fake, status: 'stopped', reason: null, restartCount: fake.restartCount, gaveUp: false });
  }

  async invoke(instance: PluginInstance, call: PluginCall): Promise<PluginCallResult> {
    const fake = this.instances.get(instance.instanceId);
    if (!fake || fake.state !== 'running') throw new InvocationError('PLUGIN_NOT_ACTIVE', `plugin ${instance.pluginId} is not running`);
    if (call.signal.aborted) throw new InvocationError('CANCELLED', 'the call was cancelled');
    const handler = this.behaviourFor(fake.spec).tools[call.localName];
    if (!handler) throw new InvocationError('TOOL_NOT_DECLARED', `plugin ${fake.pluginId} does not implement ${call.localName}`);
    this.calls.push({ instanceId: fake.instanceId, call });
    const args: unknown = JSON.parse(call.argumentsJson);
    return this.run(fake, call, handler, isJsonObject(args) ? args : {});
  }

  onStatus(listener: (event: PluginStatusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.instances.values()].map((i) => this.stop(i)));
  }

  private run(fake: FakeInstance, call: PluginCall, handler: InMemoryToolHandler, args: JsonObject): Promise<PluginCallResult> {
    return new Promise<PluginCallResult>((resolve, reject) => {
      const inner = new AbortController();
      const settle = (finish: () => void): void => {
        if (!fake.pending.has(pending)) return;
        fake.pending.delete(pending);
        clearTimeout(timer);
        call.signal.removeEventListener('abort', onAbort);
        finish();
      };
      const pending: PendingCall = {
        fail: (error) =>
          settle(() => {
            inner.abort();
            reject(error);
          }),
      };
      const onAbort = (): void => pending.fail(new InvocationError('CANCELLED', 'the call was cancelled'));
      const timer = setTimeout(() => pending.fail(new InvocationError('TOOL_TIMEOUT', `no answer within ${call.timeoutMs} ms`)), call.timeoutMs);
      fake.pending.add(pending);
      call.signal.addEventListener('abort', onAbort, { once: true });
      const context: InMemoryCallContext = {
        invocationId: call.invocationId,
        context: call.context,
        signal: inner.signal,
        crash: (reason) => this.crash(fake, reason),
      };
      Promise.resolve()
        .then(() => handler(args, context))
        .then(
          (result) => settle(() => resolve(result)),
          (error: unknown) =>
            pending.fail(error instanceof InvocationError ? error : new InvocationError('PLUGIN_CRASHED', `plugin ${fake.pluginId} failed the call`)),
        );
    });
  }

  private goDown(fake: FakeInstance, reason: string): void {
    if (Date.now() - fake.activeSince >= this.stableAfterMs) fake.restartCount = 0;
    fake.state = 'down';
    this.killPid(fake);
    this.failPending(fake, new InvocationError('PLUGIN_CRASHED', `plugin ${fake.pluginId} exited during the call`));
    this.emit({ instance: fake, status: 'error', reason, restartCount: fake.restartCount, gaveUp: false });
    this.scheduleRestart(fake);
  }

  private scheduleRestart(fake: FakeInstance): void {
    const delay = this.backoffMs * 2 ** fake.restartCount;
    fake.restartTimer = setTimeout(() => void this.restart(fake), delay);
  }

  private async restart(fake: FakeInstance): Promise<void> {
    if (fake.state !== 'down') return;
    fake.restartCount += 1;
    const behaviour = this.behaviourFor(fake.spec);
    try {
      await behaviour.beforeStart?.(fake.spec);
      this.assertStarts(behaviour);
    } catch (error) {
      if (fake.state !== 'down') return;
      const gaveUp = fake.restartCount >= this.maxRestarts;
      const reason = error instanceof Error ? error.message : String(error);
      this.emit({ instance: fake, status: 'error', reason, restartCount: fake.restartCount, gaveUp });
      if (!gaveUp) this.scheduleRestart(fake);
      return;
    }
    if (fake.state !== 'down') return;
    fake.currentPid = this.spawnPid();
    fake.state = 'running';
    fake.activeSince = Date.now();
    this.emit({ instance: fake, status: 'active', reason: null, restartCount: fake.restartCount, gaveUp: false });
  }

  private behaviourFor(spec: PluginLaunchSpec): InMemoryPluginBehaviour {
    const behaviour = this.behaviours.get(spec.executable);
    if (!behaviour) throw new PluginStartError(`no executable at ${spec.executable}`, null, [`${spec.executable}: not found`]);
    return behaviour;
  }

  private assertStarts(behaviour: InMemoryPluginBehaviour): void {
    const failure = behaviour.failsToStart;
    if (failure) throw new PluginStartError(failure.message, failure.exitCode, failure.stderr.slice(-20));
  }

  private spawnPid(): number {
    const pid = this.nextPid++;
    this.alivePids.add(pid);
    return pid;
  }

  private killPid(fake: FakeInstance): void {
    if (fake.currentPid !== undefined) this.alivePids.delete(fake.currentPid);
    fake.currentPid = undefined;
  }

  private failPending(fake: FakeInstance, error: InvocationError): void {
    for (const pending of [...fake.pending]) pending.fail(error);
  }

  private emit(event: PluginStatusEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}
