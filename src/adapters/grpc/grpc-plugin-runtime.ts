import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginSupervisor } from '../../application/plugins/plugin-supervisor';
import { DEFAULT_SUPERVISION } from '../../application/plugins/supervision-policy';
import type { Logger } from '../../application/ports/logger';
import { PluginRuntime } from '../../application/ports/plugin-runtime';
import type {
  PluginCall,
  PluginCallResult,
  PluginInstance,
  PluginLaunchSpec,
  PluginStatusEvent,
  SandboxFacts,
  ServerToolListing,
} from '../../application/ports/plugin-runtime';
import { notActive } from './invocation-failure';
import { invokeAgentToolCall } from './invoke-agent-tool-call';
import { launchPlugin, type LaunchedPlugin, type LaunchOptions } from './launch-plugin';
import { launchMcpServer, LaunchedMcpServer } from './mcp-server/launch-mcp-server';
import { ProcessGroupRecord } from './process-group-record';
import type { TmpDirPlace } from './private-tmp-dir';
import type { PluginSandbox } from './sandbox/plugin-sandbox';
import { DEFAULT_STOP_TIMINGS } from './stop-plugin-process';
import type { StopTimings } from './stop-plugin-process';

export interface GrpcPluginRuntimeOptions {
  /** Handshake plus first health check must complete within this (§9 default 30000). */
  startTimeoutMs: number;
  /** Time between health checks of a running plugin (§9 default 5000). */
  healthIntervalMs: number;
  /** First restart delay; it doubles per attempt (§9 default 1000). */
  restartBackoffMs: number;
  maxRestarts?: number;
  /** Active this long, the restart count starts over. */
  stableResetMs?: number;
  /** The host environment the §8 allow-list is taken from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** The stop sequence's waits; the contract's 1 s / 2 s unless a test shortens them. */
  stopTimings?: StopTimings;
  /** Refuse plugins that answer in plaintext (`serve --plugin-require-mtls`). */
  requireMtls?: boolean;
  /**
   * The folder (made 0700) under which each start gets its private TMPDIR; the backend puts it
   * in its data dir. Without it the runtime makes one under the system temp folder and removes
   * it in stopAll.
   */
  tmpRoot?: string;
  /** `tmpRoot`'s mode and the short run folder for TMPDIRs a deep data dir would make too long. */
  tmpPlace?: TmpDirPlace;
  /** The file (0600) recording each started process group, so the next backend can end leftovers. */
  groupRecordPath?: string;
  /** Runs each plugin in bubblewrap as this says (`serve --plugin-sandbox`); absent, none is. */
  sandbox?: PluginSandbox;
}

/** One started process, of either kind. */
type LaunchedProcess = LaunchedPlugin | LaunchedMcpServer;

/**
 * Plugin processes speaking HashiCorp go-plugin's gRPC protocol (docs/plugin-protocol.md §4), supervised as
 * §3 says and called as §6 says. Each start() is its own instance, so two versions of one
 * plugin can run side by side during an upgrade. A spec with `mcpServer` is an MCP server
 * (docs/plugin-protocol.md §16): the same sandboxed start, supervision and restarts, spoken
 * to in MCP over its stdio instead.
 */
export class GrpcPluginRuntime extends PluginRuntime {
  private readonly supervisors = new Map<string, PluginSupervisor<LaunchedProcess>>();
  private readonly listeners = new Set<(event: PluginStatusEvent) => void>();
  /** Starts still in their handshake: stopAll waits for them so none outlives it. */
  private readonly starting = new Set<Promise<unknown>>();
  private readonly groups: ProcessGroupRecord | undefined;
  private ownTmpRoot: string | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly options: GrpcPluginRuntimeOptions,
  ) {
    super();
    this.groups = options.groupRecordPath ? new ProcessGroupRecord(options.groupRecordPath) : undefined;
  }

  /**
   * Starts an instance. Its first process decides its transport: an instance that started
   * over mutual TLS refuses a restart that answers in plaintext, so a restart never downgrades
   * it silently, and `tls` stays true for its whole life.
   */
  async start(spec: PluginLaunchSpec): Promise<PluginInstance> {
    const instanceId = randomUUID();
    const logger = this.logger.child({ plugin_id: spec.pluginId, plugin_version: spec.version, instance_id: instanceId });
    const policy = {
      ...DEFAULT_SUPERVISION,
      healthIntervalMs: this.options.healthIntervalMs,
      restartBackoffMs: this.options.restartBackoffMs,
      maxRestarts: this.options.maxRestarts ?? DEFAULT_SUPERVISION.maxRestarts,
      stableResetMs: this.options.stableResetMs ?? DEFAULT_SUPERVISION.stableResetMs,
    };
    const launch = this.launchOptions();
    const starting = spec.mcpServer
      ? this.startMcpServer(spec, instanceId, logger, policy, launch)
      : (async () => {
          const first = await launchPlugin(spec, launch, logger);
          const restartOptions: LaunchOptions = first.tls
            ? {
                ...launch,
                requireTls: true,
                privateSocketSatisfiesTls: false,
                requireTlsBecause: 'this instance started over mutual TLS (a restart may not downgrade it)',
              }
            : launch;
          let handedOver = false;
          const startProcess = (): Promise<LaunchedPlugin> => {
            if (handedOver) return launchPlugin(spec, restartOptions, logger);
            handedOver = true;
            return Promise.resolve(first);
          };
          const identity = { instanceId, pluginId: spec.pluginId, version: spec.version, tls: first.tls, network: first.network };
          return PluginSupervisor.start<LaunchedProcess>(identity, startProcess, policy, logger, (event) => this.emit(event));
        })();
    this.starting.add(starting);
    try {
      const supervisor = await starting;
      this.supervisors.set(instanceId, supervisor);
      return supervisor.instance;
    } finally {
      this.starting.delete(starting);
    }
  }

  /** An MCP server has no TLS and no network of its own: the host speaks to it over its stdio. */
  private async startMcpServer(
    spec: PluginLaunchSpec,
    instanceId: string,
    logger: Logger,
    policy: Parameters<typeof PluginSupervisor.start>[2],
    launch: LaunchOptions,
  ): Promise<PluginSupervisor<LaunchedProcess>> {
    const first = await launchMcpServer(spec, launch, logger);
    let handedOver = false;
    const startProcess = (): Promise<LaunchedProcess> => {
      if (handedOver) return launchMcpServer(spec, launch, logger);
      handedOver = true;
      return Promise.resolve(first);
    };
    const identity = { instanceId, pluginId: spec.pluginId, version: spec.version, tls: false };
    return PluginSupervisor.start<LaunchedProcess>(identity, startProcess, policy, logger, (event) => this.emit(event));
  }

  override async relistTools(instance: PluginInstance): Promise<ServerToolListing> {
    const found = this.supervisors.get(instance.instanceId)?.process();
    if (!found) throw notActive(instance.pluginId, 'stopped');
    if ('why' in found) throw notActive(instance.pluginId, found.why);
    if (!(found.process instanceof LaunchedMcpServer)) throw new Error(`plugin ${instance.pluginId} is not an MCP server`);
    return found.process.relist();
  }

  private launchOptions(): LaunchOptions {
    return {
      hostEnv: this.options.env ?? process.env,
      startTimeoutMs: this.options.startTimeoutMs,
      stopTimings: this.options.stopTimings ?? DEFAULT_STOP_TIMINGS,
      requireTls: this.options.requireMtls === true,
      requireTlsBecause: 'the backend requires mutual TLS (--plugin-require-mtls)',
      privateSocketSatisfiesTls: true,
      sandbox: this.options.sandbox,
      tmpRoot: this.options.tmpRoot ?? (this.ownTmpRoot ??= mkdtempSync(join(tmpdir(), 'toolport-plugins-'))),
      ...(this.options.tmpPlace ? { tmpPlace: this.options.tmpPlace } : {}),
      groups: this.groups,
    };
  }

  override sandboxFacts(pluginId: string, network: boolean): SandboxFacts {
    const sandbox = this.options.sandbox;
    if (!sandbox) return { mode: 'none', network: true, uid: null };
    if (sandbox.mode === 'none') return { mode: 'none', network: true, uid: sandbox.uidOf(pluginId) };
    return { mode: 'bwrap', network, uid: sandbox.uidOf(pluginId) };
  }

  async stop(instance: PluginInstance): Promise<void> {
    const supervisor = this.supervisors.get(instance.instanceId);
    if (!supervisor) return;
    await supervisor.stop();
    this.supervisors.delete(instance.instanceId);
  }

  invoke(instance: PluginInstance, call: PluginCall): Promise<PluginCallResult> {
    const supervisor = this.supervisors.get(instance.instanceId);
    if (!supervisor) return Promise.reject(notActive(instance.pluginId, 'stopped'));
    const found = supervisor.process();
    if ('why' in found) return Promise.reject(notActive(instance.pluginId, found.why));
    const started = Date.now();
    const fields = { plugin_id: instance.pluginId, invocation_id: call.invocationId, local_name: call.localName };
    const launched = found.process;
    const track = (gone: () => void): (() => void) => supervisor.trackCall(gone);
    const answer =
      launched instanceof LaunchedMcpServer
        ? launched.invoke(call, track)
        : invokeAgentToolCall(instance.pluginId, launched.connection, call, track, launched.grant);
    return answer.then(
      (result) => {
        this.logger.debug({ ...fields, duration_ms: Date.now() - started, outcome: result.isError ? 'tool_error' : 'success' }, 'plugin call answered');
        return result;
      },
      (error: unknown) => {
        const code = (error as { code?: string }).code;
        this.logger.debug({ ...fields, duration_ms: Date.now() - started, outcome: 'error', code }, 'plugin call failed');
        throw error;
      },
    );
  }

  onStatus(listener: (event: PluginStatusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.starting]);
    await Promise.all([...this.supervisors.values()].map((supervisor) => this.stop(supervisor.instance)));
    if (this.ownTmpRoot) rmSync(this.ownTmpRoot, { recursive: true, force: true });
    this.ownTmpRoot = null;
  }

  private emit(event: PluginStatusEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error({ plugin_id: event.instance.pluginId, error: (error as Error).message }, 'status listener failed');
      }
    }
  }
}
