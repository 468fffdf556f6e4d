import { AnnounceReadiness } from '../application/agentctl/announce-readiness';
import { ApplyLaunchSnapshot } from '../application/agentctl/apply-launch-snapshot';
import { FollowBackend } from '../application/agentctl/follow-backend';
import type { Logger } from '../application/ports/logger';
import type { Settings } from '../application/settings';
import { McpHttpServer } from '../adapters/mcp/mcp-http-server';
import { McpStdioServer } from '../adapters/mcp/mcp-stdio-server';
import { PinoLogger } from '../adapters/pino/pino-logger';
import type { LogFormat } from '../adapters/cli/log-format';
import { EXIT, UsageError } from '../adapters/cli/exit-codes';
import { readTrustedCa } from '../adapters/shared/trusted-ca';
import { ToolportError } from '../domain/errors';
import { agentctlVersion, readAgentctlLaunch, readSnapshotFile, type AgentctlLaunch } from './agentctl-launch';
import { createAgentctlContainer, type AgentctlConfig } from './agentctl-container';
import { ListenError } from './listen-error';
import { Disposals } from './disposals';
import { startTracing } from './tracing';

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

type Fatal = (error: Error, exitCode: number) => void;

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
  const launch = readAgentctlLaunch(options.backendUrl, env, { stdio, noControlApi: options.noControlApi === true });
  const tracer = await startTracing(env, 'toolport-agentctl', logger);
  let disposals: Disposals | undefined;
  const close = (): Promise<void> => disposals?.disposeAll() ?? Promise.resolve();
  const fatal = fatalHandler(options, logger, close);
  const container = createAgentctlContainer({ ...agentctlConfig(options, settings, launch, env, fatal), logger, tracer });
  disposals = container.get(Disposals);
  try {
    if (launch.snapshotFile !== undefined) applyLaunchSnapshot(container.get(ApplyLaunchSnapshot), launch.snapshotFile, logger);
    // In stdio mode the HTTP listener only carries the control API: without one, nothing listens.
    const serveHttp = !stdio || launch.controlToken !== '';
    const listening = serveHttp ? await listen(container.get(McpHttpServer), options) : null;
    const controlUrl = launch.controlToken !== '' && listening ? listening.baseUrl : null;
    const stdioServer = stdio ? container.get(McpStdioServer) : null;
    await stdioServer?.start();
    container.get(FollowBackend).execute(controlUrl === null ? {} : { controlUrl }, (message) => fatal(new ToolportError('FORBIDDEN', message), EXIT.refused));
    const mcpUrl = stdio || !listening ? null : listening.mcpUrl;
    if (stdio) logger.info({ control_url: controlUrl }, 'agentctl serving MCP on stdio');
    else container.get(AnnounceReadiness).execute(() => announceReady(options, logger, mcpUrl, controlUrl));
    const done = stdioServer ? stdioServer.whenClosed() : new Promise<void>(() => undefined);
    return { mcpUrl, controlUrl, done, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The container's configuration for this launch. */
function agentctlConfig(
  options: AgentctlOptions,
  settings: Settings,
  launch: AgentctlLaunch,
  env: NodeJS.ProcessEnv,
  fatal: Fatal,
): Omit<AgentctlConfig, 'logger' | 'tracer'> {
  const stdio = options.stdio === true;
  return {
    settings,
    version: options.version ?? agentctlVersion(),
    launchedAs: launch.launchedAs,
    backend: {
      url: options.backendUrl,
      dataDir: options.dataDir,
      sessionToken: launch.sessionToken,
      ca: readTrustedCa(options.ca, env),
      onCertificateProblem: (message) => fatal(new ToolportError('UNAUTHORIZED', message), EXIT.unreachable),
    },
    http: {
      host: options.mcpHost ?? '127.0.0.1',
      port: Number(options.mcpPort ?? 0),
      serveMcp: !stdio,
      mcpToken: launch.mcpToken,
      controlToken: launch.controlToken,
      serveControlApi: launch.controlToken !== '',
      allowedOrigins: ([] as string[]).concat(options.allowedOrigin ?? []),
      idleSessionMs: options.idleSessionMs,
    },
    stdio,
    firstSnapshotWaitMs: options.firstSnapshotWaitMs ?? 5000,
    invokeMarginMs: 5000,
  };
}

/** Called once on a fatal condition; by default one log line, then close and exit with its code. */
function fatalHandler(options: AgentctlOptions, logger: Logger, close: () => Promise<void>): Fatal {
  let fatal = false;
  return (error, exitCode) => {
    if (fatal) return;
    fatal = true;
    if (options.onFatal) return options.onFatal(error, exitCode);
    logger.error({ err: error.message }, 'agentctl cannot go on');
    void close().finally(() => process.exit(exitCode));
  };
}

function applyLaunchSnapshot(apply: ApplyLaunchSnapshot, file: string, logger: Logger): void {
  const result = apply.execute(() => readSnapshotFile(file));
  if (result.kind === 'ignored') {
    logger.warn({}, 'launch snapshot ignored: the launch does not name the whole session (TOOLPORT_TASK_ID, _SESSION_ID, _WORKSPACE_ID, _SURFACE)');
  } else if (result.kind === 'malformed') {
    const problems = result.violations.map((v) => `${v.path}: ${v.message}`);
    throw new UsageError(`launch snapshot is malformed: ${problems.slice(0, 5).join('; ')}`);
  }
}

function listen(http: McpHttpServer, options: AgentctlOptions): Promise<{ baseUrl: string; mcpUrl: string }> {
  return http.listen().catch((error: unknown) => {
    const host = options.mcpHost ?? '127.0.0.1';
    throw ListenError.of(error, host, Number(options.mcpPort ?? 0), { port: '--mcp-port', host: '--mcp-host' }) ?? error;
  });
}

/** The one ready line for the launcher (stdout unless told otherwise). */
function announceReady(options: AgentctlOptions, logger: Logger, mcpUrl: string | null, controlUrl: string | null): void {
  const writeReady = options.writeReady ?? ((line: string) => process.stdout.write(line));
  writeReady(`${JSON.stringify({ event: 'ready', mcp_url: mcpUrl, control_url: controlUrl, pid: process.pid })}\n`);
  logger.info({ mcp_url: mcpUrl, control_url: controlUrl }, 'agentctl ready');
}
