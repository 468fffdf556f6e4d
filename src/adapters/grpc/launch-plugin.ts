import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../application/ports/logger';
import type { SupervisedProcess } from '../../application/plugins/supervised-process';
import type { HostGrant } from '../../application/ports/host-access';
import type { PluginLaunchSpec } from '../../application/ports/plugin-runtime';
import { PluginStartError } from '../../domain/errors';
import { PluginConnection } from './plugin-connection';
import { withHostAccess } from './plugin-environment';
import { describeExit, PluginProcess } from './plugin-process';
import { stopPluginProcess, type StopTimings } from './stop-plugin-process';

/** A plugin process that passed its handshake and a health check, with its connection. */
export class LaunchedPlugin implements SupervisedProcess {
  constructor(
    readonly process: PluginProcess,
    readonly connection: PluginConnection,
    private readonly stopTimings: StopTimings,
    private readonly logger: Logger,
  ) {}

  get pid(): number | undefined {
    return this.process.hasExited ? undefined : this.process.pid;
  }

  onExit(listener: (reason: string) => void): void {
    this.process.onExit((exit) => listener(`plugin process exited (${describeExit(exit)})`));
  }

  checkHealth(deadlineMs: number): Promise<string | null> {
    return this.connection.checkHealth(deadlineMs);
  }

  async stop(): Promise<void> {
    const exit = await stopPluginProcess(this.process, this.connection, this.stopTimings);
    this.logger.info({ exit: describeExit(exit) }, 'plugin stopped');
  }

  async kill(): Promise<void> {
    this.connection.close();
    this.process.signalGroup('SIGKILL');
    await this.process.exited;
  }
}

const HEALTH_DEADLINE_MS = 1000;
const HEALTH_RETRY_MS = 50;

/**
 * Spawns one process of `spec` and resolves once it printed a valid handshake and answered
 * SERVING, all within `startTimeoutMs`. Otherwise its process group is killed, its exit awaited
 * (nothing is left running) and a PluginStartError carries the reason, exit code and stderr.
 */
export async function launchPlugin(
  spec: PluginLaunchSpec,
  env: NodeJS.ProcessEnv,
  startTimeoutMs: number,
  stopTimings: StopTimings,
  logger: Logger,
): Promise<LaunchedPlugin> {
  const deadline = Date.now() + startTimeoutMs;
  const grant = await hostGrantFor(spec);
  const child = PluginProcess.spawn(spec, grant ? withHostAccess(env, grant) : env, logger);
  // The token works exactly as long as this process runs.
  if (grant) void child.exitEvent.then(() => grant.release());
  let connection: PluginConnection | null = null;
  try {
    const endpoint = await child.waitForHandshake(startTimeoutMs);
    connection = new PluginConnection(endpoint);
    await waitUntilServing(child, connection, deadline);
    return new LaunchedPlugin(child, connection, stopTimings, logger);
  } catch (error) {
    connection?.close();
    child.signalGroup('SIGKILL');
    const exit = await child.exited;
    const reason = (error as Error).message;
    logger.warn({ reason, exit: describeExit(exit) }, 'plugin failed to start');
    throw new PluginStartError(
      `plugin ${spec.pluginId} ${spec.version} failed to start: ${reason}`,
      exit.code,
      child.stderrTail(),
    );
  }
}

async function hostGrantFor(spec: PluginLaunchSpec): Promise<HostGrant | undefined> {
  try {
    return await spec.hostGrant?.();
  } catch (error) {
    throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: the Host API could not be opened (${(error as Error).message})`, null, []);
  }
}

async function waitUntilServing(child: PluginProcess, connection: PluginConnection, deadline: number): Promise<void> {
  for (;;) {
    const remaining = deadline - Date.now();
    const problem = await connection.checkHealth(Math.max(1, Math.min(HEALTH_DEADLINE_MS, remaining)));
    if (problem === null) return;
    if (child.hasExited) throw new Error(`it exited after its handshake (${problem})`);
    if (Date.now() + HEALTH_RETRY_MS >= deadline) throw new Error(`it did not become healthy in time (${problem})`);
    await delay(HEALTH_RETRY_MS);
  }
}
