import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../application/ports/logger';
import type { SupervisedProcess } from '../../application/plugins/supervised-process';
import type { HostGrant } from '../../application/ports/host-access';
import type { PluginLaunchSpec } from '../../application/ports/plugin-runtime';
import { PluginStartError } from '../../domain/errors';
import { listenerOwnershipProblem } from './listener-ownership';
import { PluginConnection } from './plugin-connection';
import { pluginEnvironment, withHostAccess } from './plugin-environment';
import { LineSplitter, logPluginLine } from './plugin-log-lines';
import { describeExit, PluginProcess } from './plugin-process';
import type { ProcessGroupRecord } from './process-group-record';
import { makePrivateTmpDir } from './private-tmp-dir';
import { stopPluginProcess, type StopTimings } from './stop-plugin-process';
import { createSelfSignedCertificate } from '@toolport/plugin-sdk/protocol';

/** A plugin process that passed its handshake and a health check, with its connection. */
export class LaunchedPlugin implements SupervisedProcess {
  constructor(
    readonly process: PluginProcess,
    readonly connection: PluginConnection,
    private readonly stopTimings: StopTimings,
    private readonly logger: Logger,
    /** This process's Host grant: where its calls in flight are admitted. */
    readonly grant?: HostGrant,
  ) {}

  get pid(): number | undefined {
    return this.process.hasExited ? undefined : this.process.pid;
  }

  /** True when the host speaks to it over mutual TLS. */
  get tls(): boolean {
    return this.connection.tls;
  }

  /** Where the host reaches it: a unix socket, or TCP on loopback. */
  get network(): 'unix' | 'tcp' {
    return this.connection.network;
  }

  onExit(listener: (reason: string) => void): void {
    this.process.onExit((exit) => listener(`plugin process exited (${describeExit(exit)})`));
  }

  checkHealth(deadlineMs: number): Promise<string | null> {
    this.process.refreshDescendants();
    return this.connection.checkHealth(deadlineMs);
  }

  async stop(): Promise<void> {
    const { exit, shutdownAcknowledged } = await stopPluginProcess(this.process, this.connection, this.stopTimings);
    this.logger.info({ exit: describeExit(exit), shutdown: shutdownAcknowledged ? 'acknowledged' : 'unanswered' }, 'plugin stopped');
  }

  async kill(): Promise<void> {
    this.connection.close();
    this.process.signalTree('SIGKILL');
    await this.process.exited;
  }
}

/** How one start goes: the runtime's options that concern a single process. */
export interface LaunchOptions {
  /** The host environment the §8 allow-list is taken from. */
  hostEnv: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  stopTimings: StopTimings;
  /** Refuse a plugin that answers without a server certificate (plaintext). */
  requireTls: boolean;
  /** Why TLS is required, for the refusal's reason. */
  requireTlsBecause: string;
  /** Where each start's private TMPDIR is made. */
  tmpRoot: string;
  /** Where started process groups are recorded, so a later backend can end them. */
  groups?: ProcessGroupRecord;
}

const HEALTH_DEADLINE_MS = 1000;
const HEALTH_RETRY_MS = 50;

/**
 * Spawns one process of `spec` with a fresh client certificate and private TMPDIR, and resolves
 * once it printed a valid handshake whose address its own process group listens on and
 * answered SERVING (over mutual TLS when it sent a certificate), all within `startTimeoutMs`.
 * Otherwise its process tree is killed, its exit awaited (nothing is left running) and a
 * PluginStartError carries the reason, exit code and stderr.
 */
export async function launchPlugin(spec: PluginLaunchSpec, options: LaunchOptions, logger: Logger): Promise<LaunchedPlugin> {
  const deadline = Date.now() + options.startTimeoutMs;
  await checkFilesOf(spec);
  const tmpDir = makePrivateTmpDir(options.tmpRoot);
  if (tmpDir.outsideRoot) logger.warn({ tmp_dir: tmpDir.path }, 'plugin TMPDIR made outside the data dir: a socket path there would reach 100 bytes');
  const certificate = createSelfSignedCertificate();
  const env = pluginEnvironment(options.hostEnv, spec.dataDir, { tmpDir: tmpDir.path, clientCertificatePem: certificate.certPem });
  const grant = await hostGrantFor(spec).catch((error: unknown) => {
    tmpDir.remove();
    throw error;
  });
  const spawnEnv = { ...(grant ? withHostAccess(env, grant) : env), TMPDIR: tmpDir.path };
  const child = await PluginProcess.spawn(spec, spawnEnv, logger).catch((error: Error) => {
    tmpDir.remove();
    grant?.release();
    throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${error.message}`, null, []);
  });
  // The Host token works exactly as long as this process runs.
  if (grant) void child.exitEvent.then(() => grant.release());
  const leader = child.identity();
  if (leader) {
    options.groups?.add({ leader, descendants: [], tmpDir: tmpDir.path });
    child.onDescendants((known) => options.groups?.setDescendants(leader.pid, known));
  }
  void child.exited.then(() => {
    if (leader) options.groups?.remove(leader.pid);
    tmpDir.remove();
  });
  let connection: PluginConnection | null = null;
  try {
    const endpoint = await child.waitForHandshake(options.startTimeoutMs);
    if (options.requireTls && !endpoint.serverCertificate) {
      throw new Error(`it answered without a server certificate (plaintext), and ${options.requireTlsBecause}`);
    }
    const notOwned = child.pid === undefined ? null : listenerOwnershipProblem(endpoint, child.pid);
    if (notOwned) throw new Error(notOwned);
    logger.debug({ network: endpoint.network, address: endpoint.address, tls: endpoint.serverCertificate !== undefined }, 'plugin handshake accepted');
    connection = new PluginConnection(endpoint, certificate);
    await waitUntilServing(child, connection, deadline);
    readStdio(connection, child, logger);
    child.refreshDescendants();
    return new LaunchedPlugin(child, connection, options.stopTimings, logger, grant);
  } catch (error) {
    connection?.close();
    child.signalTree('SIGKILL');
    const exit = await child.exited;
    const reason = (error as Error).message;
    logger.warn({ reason, exit: describeExit(exit) }, 'plugin failed to start');
    throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${reason}`, exit.code, child.stderrTail());
  }
}

/** The installed files, checked before anything is made for this start (docs/lifecycle.md §13). */
async function checkFilesOf(spec: PluginLaunchSpec): Promise<void> {
  try {
    await spec.checkFiles?.();
  } catch (error) {
    throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${(error as Error).message}`, null, []);
  }
}

async function hostGrantFor(spec: PluginLaunchSpec): Promise<HostGrant | undefined> {
  try {
    return await spec.hostGrant?.();
  } catch (error) {
    throw new PluginStartError(
      `plugin ${spec.pluginId} ${spec.version} failed to start: the Host API could not be opened (${(error as Error).message})`,
      null,
      [],
    );
  }
}

/** go-plugin's GRPCStdio output, cut into lines and logged like the process's own. */
function readStdio(connection: PluginConnection, child: PluginProcess, logger: Logger): void {
  const stderr = new LineSplitter((line, truncated) => child.onStderrLine(line, truncated));
  const stdout = new LineSplitter((line, truncated) => logPluginLine(logger, 'stdout', line, 'debug', truncated));
  connection.readStdio(
    (data) => stdout.push(data),
    (data) => stderr.push(data),
    () => (stdout.end(), stderr.end()),
  );
}

async function waitUntilServing(child: PluginProcess, connection: PluginConnection, deadline: number): Promise<void> {
  for (;;) {
    const remaining = deadline - Date.now();
    const answer = await connection.healthAnswer(Math.max(1, Math.min(HEALTH_DEADLINE_MS, remaining)));
    if (answer.serving) return;
    if (child.hasExited) throw new Error(`it exited after its handshake (${answer.reason})`);
    // No health service, or none for `plugin`: waiting out the start timeout would change nothing.
    if (answer.definitive) throw new Error(`${answer.reason}; it must serve grpc.health.v1.Health and answer SERVING for the service "plugin"`);
    if (Date.now() + HEALTH_RETRY_MS >= deadline) throw new Error(`it did not become healthy in time (${answer.reason})`);
    await delay(HEALTH_RETRY_MS);
  }
}
