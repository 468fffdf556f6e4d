import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../application/ports/logger';
import type { SupervisedProcess } from '../../application/plugins/supervised-process';
import type { HostGrant } from '../../application/ports/host-access';
import type { PluginLaunchSpec } from '../../application/ports/plugin-runtime';
import { PluginStartError } from '../../domain/errors';
import { listenerOwnershipProblem, sandboxListenerProblem } from './listener-ownership';
import { PluginConnection } from './plugin-connection';
import { pluginEnvironment } from './plugin-environment';
import { LineSplitter, logPluginLine } from './plugin-log-lines';
import { describeExit, type PluginProcess } from './plugin-process';
import { recentProcesses } from './process-tree';
import { spawnForStart, type LaunchOptions } from './start-process';
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
    this.process.refreshDescendants(recentProcesses(HEALTH_WALK_MAX_AGE_MS));
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

export type { LaunchOptions } from './start-process';

const HEALTH_DEADLINE_MS = 1000;
/** How old a walk of /proc a health check may reuse from another plugin's. */
const HEALTH_WALK_MAX_AGE_MS = 1000;
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
  const certificate = createSelfSignedCertificate();
  const { child, permissions, sandboxed, tmpDir, decision, grant } = await spawnForStart(spec, options, logger, {
    environment: ({ tmpDir: tmp, sandboxed: inSandbox, permissions: granted }) =>
      pluginEnvironment(options.hostEnv, spec.dataDir, {
        tmpDir: tmp,
        clientCertificatePem: certificate.certPem,
        workDir: spec.installDir,
        sandboxed: inSandbox,
        grantedEnv: granted.env,
      }),
    hostAccess: true,
  });
  let connection: PluginConnection | null = null;
  try {
    const endpoint = await child.waitForHandshake(options.startTimeoutMs);
    if (sandboxed) {
      const misplaced = sandboxedEndpointProblem(endpoint, tmpDir, permissions.network);
      if (misplaced) throw new Error(misplaced);
    }
    // A socket in the sandbox's private TMPDIR is as private as mutual TLS (--plugin-require-mtls).
    const privateSocket = sandboxed && endpoint.network === 'unix' && options.privateSocketSatisfiesTls === true;
    if (options.requireTls && !endpoint.serverCertificate && !privateSocket) {
      throw new Error(`it answered without a server certificate (plaintext), and ${options.requireTlsBecause}`);
    }
    const notOwned = child.pid === undefined ? null : sandboxed ? sandboxListenerProblem(endpoint, child.pid) : listenerOwnershipProblem(endpoint, child.pid);
    if (notOwned) throw new Error(notOwned);
    logger.debug(
      { network: endpoint.network, address: endpoint.address, tls: endpoint.serverCertificate !== undefined, sandbox: decision.mode },
      'plugin handshake accepted',
    );
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

/**
 * A sandboxed plugin is reached through its TMPDIR: a unix socket there. Without `network` it
 * has no port the host can reach, so a `tcp` handshake fails the start with what to do.
 */
function sandboxedEndpointProblem(endpoint: { network: 'tcp' | 'unix'; address: string }, tmpDir: string, network: boolean): string | null {
  if (endpoint.network === 'tcp') {
    if (network) return null;
    return `it listens on tcp ${endpoint.address} inside its sandbox, which has no network the host can reach: listen on a unix socket in PLUGIN_UNIX_SOCKET_DIR, or ask for the network permission`;
  }
  if (!endpoint.address.startsWith(`${tmpDir}/`))
    return `its unix socket ${endpoint.address} is not in PLUGIN_UNIX_SOCKET_DIR (${tmpDir}), the only folder it shares with the host`;
  return null;
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
