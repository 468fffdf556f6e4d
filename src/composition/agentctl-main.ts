import { readFileSync } from 'node:fs';
import { PullCatalog } from '../application/agentctl/pull-catalog';
import { ApplySnapshot } from '../application/agentctl/apply-snapshot';
import { ToolRegistry } from '../application/agentctl/tool-registry';
import { AgentctlSession } from '../application/agentctl/session-identity';
import { BackendLink } from '../application/ports/backend-link';
import type { Logger } from '../application/ports/logger';
import type { Settings } from '../application/settings';
import { McpHttpServer } from '../adapters/mcp/mcp-http-server';
import { McpStdioServer } from '../adapters/mcp/mcp-stdio-server';
import { PinoLogger } from '../adapters/pino/pino-logger';
import type { LogFormat } from '../adapters/cli/log-format';
import { readPackageVersion } from '../adapters/cli/package-version';
import { EXIT, UsageError } from '../adapters/cli/exit-codes';
import { isHttpUrl } from '../adapters/cli/http-url';
import { readTrustedCa } from '../adapters/shared/trusted-ca';
import { ToolportError } from '../domain/errors';
import type { SessionIdentity } from '../domain/session';
import { isSurface } from '../domain/surfaces';
import { createAgentctlContainer } from './agentctl-container';
import { ListenError } from './backend-listener';
import { startTracing, TRACE_FLUSH_MS } from './tracing';

/** `toolport agentctl` flags, parsed. Tokens and identity come from the environment only. */
export interface AgentctlOptions {
  backendUrl: string;
  dataDir?: string;
  stdio?: boolean;
  mcpHost?: string;
  mcpPort?: number | string;
  allowedOrigin?: string | string[];
  /** Serve no control API whatever the environment says (`--no-control-api`). */
  noControlApi?: boolean;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the one ready line goes (HTTP mode); defaults to stdout. */
  writeReady?: (line: string) => void;
  /** stdio mode streams; default process.stdin / process.stdout. */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  logger?: Logger;
  /** How its records are written on stderr (JSON when not said). */
  logFormat?: LogFormat;
  /**
   * Called on a fatal condition: the backend names another session (exit 1), or its certificate
   * cannot be trusted (exit 3). Defaults to logging one line and exiting with that code.
   */
  onFatal?: (error: Error, exitCode: number) => void;
  /** A CA file to trust for a backend on https (`--ca`; else TOOLPORT_CA). */
  ca?: string;
  idleSessionMs?: number;
  firstSnapshotWaitMs?: number;
  version?: string;
}

export interface RunningAgentctl {
  /** `http://127.0.0.1:<port>/mcp`, or null in stdio mode. */
  mcpUrl: string | null;
  /** Where its control API listens; null when it serves none. */
  controlUrl: string | null;
  /** Resolves when the agentctl should exit on its own (the stdio client went away). */
  done: Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs one agentctl: HTTP (or stdio) MCP server, its backend link and, when it has a control
 * token and no `--no-control-api`, the control API. In HTTP mode, once it listens, holds a
 * snapshot and its link is up it writes exactly one ready line for the launcher:
 * `{"event":"ready","mcp_url":…,"control_url":…|null,"pid":…}`. Nothing else goes to stdout.
 * A clean exit (close(), or the stdio client closing stdin) says goodbye on the link first.
 */
export async function runAgentctl(options: AgentctlOptions, settings: Settings): Promise<RunningAgentctl> {
  const env = options.env ?? process.env;
  const stdio = options.stdio === true;
  const logger = options.logger ?? PinoLogger.toStderr(settings.logLevel, { role: 'agentctl' }, { format: options.logFormat });
  checkBackendUrl(options.backendUrl);
  const sessionToken = requiredEnv(env, 'TOOLPORT_SESSION_TOKEN');
  const mcpToken = stdio ? (env.TOOLPORT_MCP_TOKEN ?? '') : requiredEnv(env, 'TOOLPORT_MCP_TOKEN');
  // Catalog changes come over the link; the control API is for an operator holding its token.
  const controlToken = options.noControlApi ? '' : (env.TOOLPORT_CONTROL_TOKEN ?? '');
  const serveControlApi = controlToken !== '';
  const launchedAs = launchIdentity(env);
  const tracer = await startTracing(env, 'toolport-agentctl', logger);
  const container = createAgentctlContainer({
    settings,
    logger,
    version: options.version ?? safeVersion(),
    launchedAs,
    backend: {
      url: options.backendUrl,
      dataDir: options.dataDir,
      sessionToken,
      ca: readTrustedCa(options.ca, env),
      onCertificateProblem: (message) => onFatal(new ToolportError('UNAUTHORIZED', message), EXIT.unreachable),
    },
    http: {
      host: options.mcpHost ?? '127.0.0.1',
      port: Number(options.mcpPort ?? 0),
      serveMcp: !stdio,
      mcpToken,
      controlToken,
      serveControlApi,
      allowedOrigins: ([] as string[]).concat(options.allowedOrigin ?? []),
      idleSessionMs: options.idleSessionMs,
    },
    stdio,
    firstSnapshotWaitMs: options.firstSnapshotWaitMs ?? 5000,
    invokeMarginMs: 5000,
    tracer,
  });
  const registry = container.get(ToolRegistry);
  const applySnapshot = container.get(ApplySnapshot);
  const link = container.get(BackendLink);
  const pull = container.get(PullCatalog);
  const http = container.get(McpHttpServer);

  if (env.TOOLPORT_SNAPSHOT_FILE && container.get(AgentctlSession).current() === null) {
    logger.warn({}, 'launch snapshot ignored: the launch does not name the whole session (TOOLPORT_TASK_ID, _SESSION_ID, _WORKSPACE_ID, _SURFACE)');
  } else if (env.TOOLPORT_SNAPSHOT_FILE) {
    const result = applySnapshot.execute(readSnapshotFile(env.TOOLPORT_SNAPSHOT_FILE));
    if (!result.ok)
      throw new UsageError(
        `launch snapshot is malformed: ${result.violations
          .map((v) => `${v.path}: ${v.message}`)
          .slice(0, 5)
          .join('; ')}`,
      );
  }

  // In stdio mode the HTTP listener only carries the control API: without one, nothing listens.
  const listening =
    !stdio || serveControlApi
      ? await http.listen().catch((error: unknown) => {
          const host = options.mcpHost ?? '127.0.0.1';
          throw ListenError.of(error, host, Number(options.mcpPort ?? 0), { port: '--mcp-port', host: '--mcp-host' }) ?? error;
        })
      : null;
  const controlUrl = serveControlApi && listening ? listening.baseUrl : null;
  const stdioServer = stdio ? container.get(McpStdioServer) : null;
  if (stdioServer) await stdioServer.start();

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await link.goodbye(1000);
    await link.close();
    await stdioServer?.close();
    if (listening) await http.close();
    // Last: the spans of calls that ended while closing are exported too.
    await tracer.shutdown(TRACE_FLUSH_MS);
  };
  let fatal = false;
  const onFatal = (error: Error, exitCode: number): void => {
    if (fatal) return;
    fatal = true;
    if (options.onFatal) return options.onFatal(error, exitCode);
    logger.error({ err: error.message }, 'agentctl cannot go on');
    void close().finally(() => process.exit(exitCode));
  };

  link.onConnected((session: SessionIdentity) => {
    void pull.execute(session).then((result) => {
      if (result.kind === 'identity_mismatch') onFatal(new ToolportError('FORBIDDEN', result.message), EXIT.refused);
    });
  });
  link.onPush((payload) => applySnapshot.push(payload));
  link.connect(controlUrl === null ? {} : { controlUrl });

  const mcpUrl = stdio || !listening ? null : listening.mcpUrl;
  if (!stdio) {
    const writeReady = options.writeReady ?? ((line: string) => process.stdout.write(line));
    const announce = (): void => {
      writeReady(`${JSON.stringify({ event: 'ready', mcp_url: mcpUrl, control_url: controlUrl, pid: process.pid })}\n`);
      logger.info({ mcp_url: mcpUrl, control_url: controlUrl }, 'agentctl ready');
    };
    // Ready means an agent's first call goes through: a snapshot held (from the launch file or
    // the first pull) and the link up. A launched agentctl holds one before it has linked.
    let announced = false;
    const announceWhenReady = (): void => {
      if (announced || !registry.isHolding() || !link.isConnected()) return;
      announced = true;
      stopSwaps();
      stopLinks();
      announce();
    };
    const stopSwaps = registry.onSwap(announceWhenReady);
    const stopLinks = link.onConnected(announceWhenReady);
    announceWhenReady();
  } else {
    logger.info({ control_url: controlUrl }, 'agentctl serving MCP on stdio');
  }
  const done = stdioServer ? stdioServer.whenClosed() : new Promise<void>(() => undefined);
  return { mcpUrl, controlUrl, done, close };
}

function requiredEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new UsageError(`${name} is not set; agentctl takes its tokens from the environment only (toolport session start --no-launch prints them)`);
  return value;
}

/**
 * `--backend-url` is one http(s) URL or several, comma-separated (replicas, CONTRACT §12): anything
 * else would only fail later, on every reconnect.
 */
function checkBackendUrl(raw: string): void {
  for (const url of raw.split(',').map((part) => part.trim())) {
    if (!isHttpUrl(url)) {
      throw new UsageError(
        `--backend-url: ${JSON.stringify(url)} is not an http:// or https:// URL (the backend's, from its backend.json; replicas' URLs are comma-separated)`,
      );
    }
  }
}

function launchIdentity(env: NodeJS.ProcessEnv): Partial<SessionIdentity> {
  const identity: Partial<SessionIdentity> = {};
  if (env.TOOLPORT_TASK_ID) identity.task_id = env.TOOLPORT_TASK_ID;
  if (env.TOOLPORT_SESSION_ID) identity.session_id = env.TOOLPORT_SESSION_ID;
  if (env.TOOLPORT_WORKSPACE_ID) identity.workspace_id = env.TOOLPORT_WORKSPACE_ID;
  if (env.TOOLPORT_SURFACE) {
    if (!isSurface(env.TOOLPORT_SURFACE)) throw new UsageError(`TOOLPORT_SURFACE "${env.TOOLPORT_SURFACE}" is not a surface`);
    identity.surface = env.TOOLPORT_SURFACE;
  }
  return identity;
}

function readSnapshotFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the launch snapshot ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function safeVersion(): string {
  try {
    return readPackageVersion();
  } catch {
    return '0.0.0';
  }
}
