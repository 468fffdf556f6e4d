import { PluginSupervisor } from '../../application/plugins/plugin-supervisor';
import type { SupervisedProcess } from '../../application/plugins/supervised-process';
import { DEFAULT_SUPERVISION, type SupervisionPolicy } from '../../application/plugins/supervision-policy';
import type { Logger } from '../../application/ports/logger';
import type { HostGrant } from '../../application/ports/host-access';
import {
  PluginRuntime,
  type LaunchPermissions,
  type SandboxFacts,
  type PluginCall,
  type PluginCallResult,
  type PluginInstance,
  type PluginLaunchSpec,
  type PluginStatusEvent,
  type ServerToolListing,
} from '../../application/ports/plugin-runtime';
import { InvocationError, PluginStartError } from '../../domain/errors';
import { isJsonObject, type JsonObject } from '../../domain/json';
import { SilentLogger } from './silent-logger';
import type { SessionIdentity } from '../../domain/session';

/** What a fake plugin's tool sees for one call. */
export interface InMemoryCallContext {
  invocationId: string;
  context: SessionIdentity;
  /** Aborted when the call is cancelled, times out or its process goes down. */
  signal: AbortSignal;
  /** Makes the instance's process "exit" now (the call fails with PLUGIN_CRASHED). */
  crash(reason?: string): void;
  /** The Host token this process was started with (TOOLPORT_HOST_TOKEN), if the spec asked for one. */
  hostToken: string | undefined;
  /** What this process was granted to reach (the spec's `permissions`, resolved at its start); nothing when the spec grants none. */
  permissions: LaunchPermissions;
}

export type InMemoryToolHandler = (args: JsonObject, call: InMemoryCallContext) => PluginCallResult | Promise<PluginCallResult>;

/** How a fake plugin registered under an executable path behaves. */
export interface InMemoryPluginBehaviour {
  tools: Record<string, InMemoryToolHandler>;
  /** When set, start() and restarts fail with this PluginStartError. */
  failsToStart?: { message: string; exitCode: number | null; stderr: string[] };
  /** Awaited before each start completes, so a test can hold a start open; given what that start was granted. */
  beforeStart?: (spec: PluginLaunchSpec, permissions: LaunchPermissions) => Promise<void>;
  /**
   * An MCP server plugin's `tools/list` (raw MCP tool objects), asked at each start (restarts
   * included) and each re-list, so a test changes what the "server" lists by changing what this answers.
   */
  serverTools?: () => JsonObject[];
}

/** What every fake MCP server says it is. */
export const IN_MEMORY_MCP_SERVER = { name: 'in-memory-server', version: '1.0.0' };

/** How the fake says its plugins run (its records' `sandbox`), as a real runtime with or without bubblewrap. */
export interface InMemoryRuntimeOptions {
  /** `bwrap`: sandboxed, with the host's network only when granted; `none` (the default): unsandboxed, as a runtime without a sandbox. */
  sandbox?: 'bwrap' | 'none';
}

/** What a start may reach when its spec grants nothing, as the real runtime assumes. */
const NOTHING_GRANTED: LaunchPermissions = { network: false, readPaths: [], writePaths: [], env: [] };

/** A fake OS process: a pid, an exit the test triggers, a health the test can break. */
class FakeProcess implements SupervisedProcess {
  unhealthy = false;
  private exitListener: ((reason: string) => void) | null = null;
  private alive = true;

  constructor(
    readonly pid: number,
    private readonly onGone: (pid: number) => void,
    readonly grant: HostGrant | undefined,
    readonly permissions: LaunchPermissions,
  ) {}

  onExit(listener: (reason: string) => void): void {
    this.exitListener = listener;
  }

  /** The process "exits" on its own. */
  exit(reason: string): void {
    if (!this.alive) return;
    this.end();
    this.exitListener?.(reason);
  }

  async checkHealth(): Promise<string | null> {
    return this.unhealthy ? 'health check answered NOT_SERVING' : null;
  }

  async stop(): Promise<void> {
    this.end();
  }

  async kill(): Promise<void> {
    this.end();
  }

  private end(): void {
    if (!this.alive) return;
    this.alive = false;
    // As the real runtime does: the Host token stops working when its process is gone.
    void this.grant?.release();
    this.onGone(this.pid);
  }
}

/**
 * A programmable PluginRuntime with no OS processes: plugins are registered by executable path
 * with tool handlers, and tests crash processes or break their health on demand. Supervision
 * (health checks, restart backoff, stable reset, give-up) is the one every runtime uses.
 */
export class InMemoryPluginRuntime extends PluginRuntime {
  /** Every call that reached a plugin, in order (a test double's record). */
  readonly calls: Array<{ instanceId: string; call: PluginCall }> = [];
  private readonly behaviours = new Map<string, InMemoryPluginBehaviour>();
  private readonly supervisors = new Map<string, { supervisor: PluginSupervisor<FakeProcess>; spec: PluginLaunchSpec }>();
  private readonly listeners = new Set<(event: PluginStatusEvent) => void>();
  private readonly alivePids = new Set<number>();
  private readonly policy: SupervisionPolicy;
  private nextPid = 20000;
  private nextInstance = 1;

  constructor(
    policy: Partial<SupervisionPolicy> = {},
    private readonly logger: Logger = new SilentLogger(),
    private readonly options: InMemoryRuntimeOptions = {},
  ) {
    super();
    this.policy = { ...DEFAULT_SUPERVISION, ...policy };
  }

  /** As the real runtime: sandboxed, a plugin has the host's network only when granted it; unsandboxed, always. */
  override sandboxFacts(pluginId: string, network: boolean): SandboxFacts {
    void pluginId;
    return this.options.sandbox === 'bwrap' ? { mode: 'bwrap', network, uid: null } : { mode: 'none', network: true, uid: null };
  }

  /** Registers (or replaces) the behaviour of the plugin whose executable is `executable`. */
  register(executable: string, behaviour: InMemoryPluginBehaviour): void {
    this.behaviours.set(executable, behaviour);
  }

  /** Whether a fake process with this pid runs. */
  isAlive(pid: number): boolean {
    return this.alivePids.has(pid);
  }

  /** The instances started and not yet stopped that have a process now. */
  runningInstances(): PluginInstance[] {
    return [...this.supervisors.values()]
      .map(({ supervisor }) => supervisor)
      .filter((s) => 'process' in s.process())
      .map((s) => s.instance);
  }

  /** Makes the instance's process exit: in-flight calls fail, `error`, then restarts. */
  crash(instance: PluginInstance, reason = 'plugin process exited with code 1'): void {
    this.fakeOf(instance)?.exit(reason);
  }

  /** Makes the instance's process fail its health checks from now on (the supervisor notices). */
  failHealth(instance: PluginInstance): void {
    const fake = this.fakeOf(instance);
    if (fake) fake.unhealthy = true;
  }

  /** Test hook: the fake MCP server of `instance` says `notifications/tools/list_changed` and is listed again. */
  async listChanged(instance: PluginInstance): Promise<ServerToolListing> {
    return this.relistTools(instance);
  }

  override async relistTools(instance: PluginInstance): Promise<ServerToolListing> {
    const entry = this.supervisors.get(instance.instanceId);
    const found = entry?.supervisor.process();
    if (!entry || !found || 'why' in found) throw new InvocationError('PLUGIN_NOT_ACTIVE', `plugin ${instance.pluginId} is not running`);
    if (!entry.spec.mcpServer) throw new Error(`plugin ${instance.pluginId} is not an MCP server`);
    return this.listServerTools(entry.spec);
  }

  /** Test hook: delivers `event` to listeners as the runtime would (say, a late one). */
  emitStatus(event: PluginStatusEvent): void {
    this.emit(event);
  }

  async start(spec: PluginLaunchSpec): Promise<PluginInstance> {
    const identity = { instanceId: `mem-${this.nextInstance++}`, pluginId: spec.pluginId, version: spec.version, tls: false };
    const supervisor = await PluginSupervisor.start(
      identity,
      () => this.startProcess(spec),
      this.policy,
      this.logger.child({ plugin_id: spec.pluginId, instance_id: identity.instanceId }),
      (event) => this.emit(event),
    );
    this.supervisors.set(identity.instanceId, { supervisor, spec });
    return supervisor.instance;
  }

  async stop(instance: PluginInstance): Promise<void> {
    const entry = this.supervisors.get(instance.instanceId);
    if (!entry) return;
    await entry.supervisor.stop();
    this.supervisors.delete(instance.instanceId);
  }

  async invoke(instance: PluginInstance, call: PluginCall): Promise<PluginCallResult> {
    const entry = this.supervisors.get(instance.instanceId);
    const found = entry?.supervisor.process();
    if (!entry || !found || 'why' in found) throw new InvocationError('PLUGIN_NOT_ACTIVE', `plugin ${instance.pluginId} is not running`);
    if (call.signal.aborted) throw new InvocationError('CANCELLED', 'the call was cancelled');
    const handler = this.behaviourFor(entry.spec).tools[call.localName];
    if (!handler) throw new InvocationError('TOOL_NOT_DECLARED', `plugin ${instance.pluginId} does not implement ${call.localName}`);
    this.calls.push({ instanceId: instance.instanceId, call });
    const args: unknown = JSON.parse(call.argumentsJson);
    return this.run(entry.supervisor, found.process, call, handler, isJsonObject(args) ? args : {});
  }

  onStatus(listener: (event: PluginStatusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.supervisors.values()].map(({ supervisor }) => this.stop(supervisor.instance)));
  }

  private async startProcess(spec: PluginLaunchSpec): Promise<FakeProcess> {
    const behaviour = this.behaviourFor(spec);
    // As the real runtime: the installed files are checked first, then the granted reach is
    // resolved, then the Host grant comes before the "spawn", and goes with a failed start.
    await spec.checkFiles?.().catch((error: Error) => {
      throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${error.message}`, null, []);
    });
    const permissions = await this.permissionsOf(spec);
    const grant = await spec.hostGrant?.().catch((error: Error) => {
      throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: the Host API could not be opened (${error.message})`, null, []);
    });
    try {
      await behaviour.beforeStart?.(spec, permissions);
      const failure = behaviour.failsToStart;
      if (failure) throw new PluginStartError(failure.message, failure.exitCode, failure.stderr.slice(-20));
    } catch (error) {
      await grant?.release();
      throw error;
    }
    const pid = this.nextPid++;
    this.alivePids.add(pid);
    const started = new FakeProcess(pid, (gone) => this.alivePids.delete(gone), grant, permissions);
    if (spec.mcpServer) this.listServerTools(spec);
    return started;
  }

  /** As the MCP runtime does for each complete list: the listing goes to the spec's onServerTools. */
  private listServerTools(spec: PluginLaunchSpec): ServerToolListing {
    // Through JSON, as over stdio: plain objects of this realm, nothing shared with the test's own.
    const listing = { server: { ...IN_MEMORY_MCP_SERVER }, tools: JSON.parse(JSON.stringify(this.behaviourFor(spec).serverTools?.() ?? [])) as JsonObject[] };
    spec.onServerTools?.(listing);
    return listing;
  }

  private async permissionsOf(spec: PluginLaunchSpec): Promise<LaunchPermissions> {
    try {
      return (await spec.permissions?.()) ?? NOTHING_GRANTED;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${reason}`, null, []);
    }
  }

  private run(
    supervisor: PluginSupervisor<FakeProcess>,
    process: FakeProcess,
    call: PluginCall,
    handler: InMemoryToolHandler,
    args: JsonObject,
  ): Promise<PluginCallResult> {
    return new Promise<PluginCallResult>((resolve, reject) => {
      const inner = new AbortController();
      let settled = false;
      const dismiss =
        process.grant?.admit({
          invocationId: call.invocationId,
          workspaceId: call.context.workspace_id,
          taskId: call.context.task_id,
          sessionId: call.context.session_id,
          profile: call.context.profile,
        }) ?? (() => undefined);
      const settle = (finish: () => void): void => {
        if (settled) return;
        settled = true;
        dismiss();
        clearTimeout(timer);
        untrack();
        call.signal.removeEventListener('abort', onAbort);
        finish();
      };
      const fail = (error: InvocationError): void =>
        settle(() => {
          inner.abort();
          reject(error);
        });
      const onAbort = (): void => fail(new InvocationError('CANCELLED', 'the call was cancelled'));
      const timer = setTimeout(() => fail(new InvocationError('TOOL_TIMEOUT', `no answer within ${call.timeoutMs} ms`)), call.timeoutMs);
      const untrack = supervisor.trackCall(() => fail(new InvocationError('PLUGIN_CRASHED', `plugin ${supervisor.instance.pluginId} exited during the call`)));
      call.signal.addEventListener('abort', onAbort, { once: true });
      const context: InMemoryCallContext = {
        invocationId: call.invocationId,
        context: call.context,
        signal: inner.signal,
        crash: (reason = 'plugin process exited with code 1') => process.exit(reason),
        hostToken: process.grant?.token,
        permissions: process.permissions,
      };
      Promise.resolve()
        .then(() => handler(args, context))
        .then(
          (result) => settle(() => resolve(result)),
          (error: unknown) =>
            fail(error instanceof InvocationError ? error : new InvocationError('PLUGIN_CRASHED', `plugin ${supervisor.instance.pluginId} failed the call`)),
        );
    });
  }

  private fakeOf(instance: PluginInstance): FakeProcess | undefined {
    const found = this.supervisors.get(instance.instanceId)?.supervisor.process();
    return found && 'process' in found ? found.process : undefined;
  }

  private behaviourFor(spec: PluginLaunchSpec): InMemoryPluginBehaviour {
    const behaviour = this.behaviours.get(spec.executable);
    if (!behaviour) throw new PluginStartError(`no executable at ${spec.executable}`, null, [`${spec.executable}: not found`]);
    return behaviour;
  }

  private emit(event: PluginStatusEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}
