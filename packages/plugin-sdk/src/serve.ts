import { Server, status } from '@grpc/grpc-js';
import type { handleUnaryCall } from '@grpc/grpc-js';
import { GRPCControllerService } from './generated/plugin/grpc_controller';
import type { Empty } from './generated/plugin/grpc_controller';
import { PluginService } from './generated/toolport/plugin/v1/plugin';
import { APP_PROTOCOL_VERSION, CORE_PROTOCOL_VERSION, PLUGIN_COOKIE_KEY, PLUGIN_COOKIE_VALUE } from './protocol-constants';
import { HealthCheckResponse_ServingStatus, HealthService } from './generated/grpc/health/v1/health';
import type { HealthCheckRequest, HealthCheckResponse } from './generated/grpc/health/v1/health';
import { watchHost } from './host-watch';
import { listen, listenPlan, type ListenPlan } from './listen';
import { hostConnection } from './plugin-host';
import { createPluginLogger } from './plugin-logger';
import { serveCredentials } from './serve-credentials';
import { toolDispatcher } from './tool-dispatch';
import type { PluginLogger, ServedPlugin, ServeOptions } from './types';

/** Health is SERVING for go-plugin's `plugin` service and for the whole server (""). */
const SERVING_SERVICES = new Set(['plugin', '']);
const GRACE_MS = 500;

/**
 * Serves a Toolport plugin and prints the go-plugin handshake on stdout, so the host can call
 * its tools: on a unix socket in PLUGIN_UNIX_SOCKET_DIR when the host set it, else on
 * 127.0.0.1 (inside PLUGIN_MIN_PORT..PLUGIN_MAX_PORT when both are set); over mutual TLS
 * whenever the host passed `PLUGIN_CLIENT_CERT` (only the host can then call it).
 * Refuses to run (stderr message, exit 1) unless the host started it. The process exits by
 * itself when the host asks it to shut down, sends SIGTERM/SIGINT, or is gone.
 */
export async function serve(options: ServeOptions): Promise<ServedPlugin> {
  exitUnlessStartedByHost();
  const { credentials, handshakeField, plan } = transportOrExit();
  const log = createPluginLogger(options.logLevel ?? 'info');
  const inFlight = new Set<AbortController>();
  const server = new Server();
  let shuttingDown: Promise<never> | null = null;
  const shutdown = (reason = 'asked to shut down'): Promise<never> => {
    shuttingDown ??= exitGracefully(server, inFlight, log, reason, options.onShutdown);
    return shuttingDown;
  };

  const hostFor = (invocationId: string) => hostConnection().forCall(invocationId);
  server.addService(PluginService, { invokeAgentTool: toolDispatcher(options.tools, log, inFlight, hostFor) });
  const controllerShutdown: handleUnaryCall<Empty, Empty> = (_call, reply) => {
    reply(null, {});
    // Answer first, then go: the host waits for the process to exit after the reply.
    setImmediate(() => void shutdown('the host asked it to shut down'));
  };
  server.addService(GRPCControllerService, { shutdown: controllerShutdown });
  server.addService(HealthService, { check: healthCheck });

  const { address, port } = await listen(server, credentials, plan).catch((error: Error) => exitWith(error.message));
  // go-plugin's line, on TCP and unix sockets alike: the certificate field too whenever mutual TLS applies.
  process.stdout.write(`${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|${address.network}|${address.address}|grpc|${handshakeField}\n`);
  // On TCP the record keeps the `port` field it always had.
  const where = address.network === 'tcp' ? { network: 'tcp', address: address.address, port } : { network: 'unix', address: address.address };
  log.info('plugin serving', { ...where, tls: handshakeField !== '', tools: Object.keys(options.tools) });

  watchHost(() => void shutdown('its host process is gone'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return { address, port, log, shutdown };
}

const healthCheck: handleUnaryCall<HealthCheckRequest, HealthCheckResponse> = (call, reply) => {
  if (SERVING_SERVICES.has(call.request.service)) reply(null, { status: HealthCheckResponse_ServingStatus.SERVING });
  else reply({ code: status.NOT_FOUND, details: `unknown service ${JSON.stringify(call.request.service)}` });
};

function exitUnlessStartedByHost(): void {
  if (process.env[PLUGIN_COOKIE_KEY] === PLUGIN_COOKIE_VALUE) {
    const offered = (process.env.PLUGIN_PROTOCOL_VERSIONS ?? APP_PROTOCOL_VERSION).split(',').map((v) => v.trim());
    if (offered.includes(APP_PROTOCOL_VERSION)) return;
    process.stderr.write(`This Toolport plugin speaks plugin protocol ${APP_PROTOCOL_VERSION}, but the host offers ${offered.join(', ')}.\n`);
    process.exit(1);
  }
  process.stderr.write(
    'This is a Toolport plugin. It is not meant to be run directly: install it into Toolport ' +
      '(`toolport plugin install <dir-or-tgz>`), which starts it when needed.\n',
  );
  process.exit(1);
}

/** The credentials and the place to listen the host's variables ask for; a bad variable ends the process with its message. */
function transportOrExit(): ReturnType<typeof serveCredentials> & { plan: ListenPlan } {
  try {
    return { ...serveCredentials(process.env), plan: listenPlan(process.env) };
  } catch (error) {
    return exitWith((error as Error).message);
  }
}

function exitWith(reason: string): never {
  process.stderr.write(`This Toolport plugin cannot start: ${reason}.\n`);
  process.exit(1);
}

async function exitGracefully(
  server: Server,
  inFlight: Set<AbortController>,
  log: PluginLogger,
  reason: string,
  onShutdown: ServeOptions['onShutdown'],
): Promise<never> {
  log.info('plugin shutting down', { reason });
  for (const controller of inFlight) controller.abort(new Error(`the plugin is shutting down (${reason})`));
  await withinMs(new Promise<void>((done) => server.tryShutdown(() => done())), GRACE_MS);
  server.forceShutdown();
  if (onShutdown) await withinMs(Promise.resolve().then(onShutdown), 1000);
  process.exit(0);
}

async function withinMs(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((done) => (timer = setTimeout(done, ms)));
  await Promise.race([work.catch(() => undefined), timeout]);
  clearTimeout(timer);
}
