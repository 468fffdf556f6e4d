import type { Logger } from '../../../application/ports/logger';
import type { SupervisedProcess } from '../../../application/plugins/supervised-process';
import type { PluginCall, PluginCallResult, PluginLaunchSpec, ServerToolListing } from '../../../application/ports/plugin-runtime';
import { InvocationError, PluginStartError } from '../../../domain/errors';
import { isJsonObject, type JsonObject } from '../../../domain/json';
import { describeExit, type PluginProcess } from '../plugin-process';
import { spawnForStart, type LaunchOptions } from '../start-process';
import { exitsWithin, type StopTimings } from '../stop-plugin-process';
import { mcpServerEnvironment } from './mcp-server-environment';
import { McpRequestError, McpStdioClient } from './mcp-stdio-client';
import { mcpToolCall } from './mcp-tool-call';

/** The protocol revision the host asks for, and the oldest answer it accepts (ISO dates compare as text). */
export const MCP_PROTOCOL_VERSION = '2025-11-25';
export const OLDEST_MCP_PROTOCOL_VERSION = '2025-03-26';
/** A `tools/list` that goes on longer than this is refused rather than followed forever. */
const MAX_LIST_PAGES = 100;
const MCP_LEVELS: Record<string, 'debug' | 'info' | 'warn' | 'error'> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/** An MCP server process that answered `initialize` and a complete `tools/list`, with its client. */
export class LaunchedMcpServer implements SupervisedProcess {
  private lastListing: ServerToolListing;
  private relisting: Promise<ServerToolListing> | null = null;
  private listChangedWhileListing = false;

  constructor(
    readonly process: PluginProcess,
    readonly client: McpStdioClient,
    first: ServerToolListing,
    private readonly spec: PluginLaunchSpec,
    private readonly options: { stopTimings: StopTimings; listTimeoutMs: number },
    private readonly logger: Logger,
  ) {
    this.lastListing = first;
  }

  get pid(): number | undefined {
    return this.process.hasExited ? undefined : this.process.pid;
  }

  /** The last complete list and the server's `initialize` answer. */
  get listing(): ServerToolListing {
    return this.lastListing;
  }

  onExit(listener: (reason: string) => void): void {
    this.process.onExit((exit) => listener(`MCP server process exited (${describeExit(exit)})`));
  }

  async checkHealth(deadlineMs: number): Promise<string | null> {
    this.process.refreshDescendants();
    try {
      await this.client.request('ping', undefined, { timeoutMs: deadlineMs });
      return null;
    } catch (error) {
      return `ping: ${(error as Error).message}`;
    }
  }

  /** Closes its stdin (an MCP server's cue to exit), 1 s, then SIGTERM to the group, 2 s, then SIGKILL. */
  async stop(): Promise<void> {
    if (!this.process.hasExited) {
      this.process.stdin?.end();
      if (!(await exitsWithin(this.process, this.options.stopTimings.shutdownMs))) {
        this.process.signalTree('SIGTERM');
        if (!(await exitsWithin(this.process, this.options.stopTimings.termMs))) this.process.signalTree('SIGKILL');
      }
    }
    const exit = await this.process.exited;
    this.client.close();
    this.logger.info({ exit: describeExit(exit) }, 'plugin stopped');
  }

  async kill(): Promise<void> {
    this.client.close();
    this.process.signalTree('SIGKILL');
    await this.process.exited;
  }

  /** One call; a pinned tool the server's last list lacks is refused as PLUGIN_ERROR without asking it. */
  invoke(call: PluginCall, track: (onProcessGone: () => void) => () => void): Promise<PluginCallResult> {
    const name = call.serverName ?? call.localName;
    if (!this.lastListing.tools.some((tool) => tool.name === name)) {
      return Promise.reject(new InvocationError('PLUGIN_ERROR', `${this.spec.pluginId}/${call.localName}: the MCP server no longer has the tool "${name}"`));
    }
    return mcpToolCall(this.spec.pluginId, this.client, call, track);
  }

  /** Lists the tools again (every page), reports the list, and answers it; concurrent asks share one list. */
  relist(): Promise<ServerToolListing> {
    this.relisting ??= listTools(this.client, this.options.listTimeoutMs, () => this.takeListChanged())
      .then((tools) => {
        this.lastListing = { server: this.lastListing.server, tools };
        this.spec.onServerTools?.(this.lastListing);
        return this.lastListing;
      })
      .finally(() => {
        this.relisting = null;
      });
    return this.relisting;
  }

  /** The server said its tools changed: list them again (once more if it says so during the list). */
  listChanged(): void {
    if (this.relisting) {
      this.listChangedWhileListing = true;
      return;
    }
    void this.relist()
      .then(() => {
        if (!this.takeListChanged()) return;
        this.listChanged();
      })
      .catch((error: unknown) => this.logger.warn({ reason: (error as Error).message }, 'MCP server tools could not be listed again'));
  }

  private takeListChanged(): boolean {
    const changed = this.listChangedWhileListing;
    this.listChangedWhileListing = false;
    return changed;
  }
}

/**
 * Starts one MCP server process of `spec` (docs/plugin-protocol.md, MCP servers, Start) through
 * the shared sandboxed start, then over its stdio: `initialize` (protocol 2025-11-25, no client
 * capabilities; an answer older than 2025-03-26 fails), `notifications/initialized`, and
 * `tools/list` through every page, once more if `tools/list_changed` came before the answer.
 * The listing is reported to `spec.onServerTools` before this resolves. All of it within the
 * start timeout, else the process tree is killed, its exit awaited and a PluginStartError
 * carries the reason, exit code and stderr.
 */
export async function launchMcpServer(spec: PluginLaunchSpec, options: LaunchOptions, logger: Logger): Promise<LaunchedMcpServer> {
  const deadline = Date.now() + options.startTimeoutMs;
  const client = new McpStdioClient(logger);
  let launched: LaunchedMcpServer | null = null;
  let listChangedEarly = false;
  client.onNotification((method, params) => {
    if (method === 'notifications/message') logServerMessage(logger, params);
    else if (method === 'notifications/tools/list_changed') {
      if (launched) launched.listChanged();
      else listChangedEarly = true;
    }
  });
  const { child } = await spawnForStart(spec, options, logger, {
    environment: ({ permissions }) =>
      mcpServerEnvironment(options.hostEnv, {
        dataDir: spec.dataDir,
        workDir: spec.installDir,
        grantedEnv: permissions.env,
        serverEnv: spec.mcpServer?.env ?? {},
      }),
    hostAccess: false,
    stdio: { onStdout: (chunk) => client.push(chunk) },
  });
  child.stdin?.on('close', () => client.close());
  client.attach((line) => {
    if (!child.hasExited) child.stdin?.write(line);
  });
  const exited = new Promise<never>((_, reject) => {
    child.onExit((exit) => {
      client.close();
      reject(new Error(`it exited (${describeExit(exit)}) before it answered initialize and tools/list`));
    });
  });
  exited.catch(() => undefined);
  try {
    const remaining = (): number => Math.max(1, deadline - Date.now());
    const handshake = async (): Promise<ServerToolListing> => {
      const answer = await client.request(
        'initialize',
        { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'toolport', version: '1' } },
        { timeoutMs: remaining() },
      );
      const server = initializeProblem(answer);
      if ('problem' in server) throw new Error(server.problem);
      client.notify('notifications/initialized');
      let tools = await listTools(client, remaining());
      if (listChangedEarly) tools = await listTools(client, remaining());
      return { server: server.info, tools };
    };
    const listing = await Promise.race([handshake(), exited, timeout(options.startTimeoutMs)]);
    launched = new LaunchedMcpServer(child, client, listing, spec, { stopTimings: options.stopTimings, listTimeoutMs: options.startTimeoutMs }, logger);
    spec.onServerTools?.(listing);
    child.refreshDescendants();
    logger.debug({ server: listing.server.name, tools: listing.tools.length }, 'MCP server initialized');
    return launched;
  } catch (error) {
    client.close();
    child.signalTree('SIGKILL');
    const exit = await child.exited;
    const timedOut = error instanceof McpRequestError && error.failure.kind === 'timeout';
    const reason = timedOut ? `it did not answer initialize and tools/list within ${options.startTimeoutMs} ms` : (error as Error).message;
    logger.warn({ reason, exit: describeExit(exit) }, 'plugin failed to start');
    throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${reason}`, exit.code, child.stderrTail());
  }
}

/** `tools/list` through every page (`nextCursor`); `changedMeanwhile`, asked after a list, may ask for one more. */
async function listTools(client: McpStdioClient, timeoutMs: number, changedMeanwhile?: () => boolean): Promise<JsonObject[]> {
  for (let attempt = 0; ; attempt += 1) {
    const tools: JsonObject[] = [];
    let cursor: string | undefined;
    for (let page = 0; ; page += 1) {
      if (page === MAX_LIST_PAGES) throw new Error(`its tools/list went on past ${MAX_LIST_PAGES} pages`);
      const answer = await client.request('tools/list', cursor === undefined ? {} : { cursor }, { timeoutMs });
      if (!isJsonObject(answer) || !Array.isArray(answer.tools)) throw new Error('its tools/list answer has no tools list');
      for (const tool of answer.tools as unknown[]) if (isJsonObject(tool)) tools.push(tool);
      if (typeof answer.nextCursor !== 'string' || answer.nextCursor === '') break;
      cursor = answer.nextCursor;
    }
    if (attempt === 0 && changedMeanwhile?.()) continue;
    return tools;
  }
}

function initializeProblem(answer: unknown): { info: { name: string; version: string } } | { problem: string } {
  if (!isJsonObject(answer)) return { problem: 'its initialize answer is not an object' };
  const version = answer.protocolVersion;
  if (typeof version !== 'string') return { problem: 'its initialize answer names no protocolVersion' };
  if (version < OLDEST_MCP_PROTOCOL_VERSION) {
    return {
      problem: `it answered MCP protocol ${JSON.stringify(version.slice(0, 32))}, older than ${OLDEST_MCP_PROTOCOL_VERSION}, the oldest the host speaks`,
    };
  }
  const info = isJsonObject(answer.serverInfo) ? answer.serverInfo : {};
  return { info: { name: typeof info.name === 'string' ? info.name : '', version: typeof info.version === 'string' ? info.version : '' } };
}

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`it did not answer initialize and tools/list within ${ms} ms`)), ms).unref();
  });
}

/** `notifications/message` as a record of the plugin's log at its level; its data as text, never parsed into fields. */
function logServerMessage(logger: Logger, params: unknown): void {
  if (!isJsonObject(params)) return;
  const level = MCP_LEVELS[typeof params.level === 'string' ? params.level : ''] ?? 'info';
  const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data ?? null);
  const fields = { origin: 'plugin', stream: 'mcp', ...(typeof params.logger === 'string' ? { mcp_logger: params.logger.slice(0, 128) } : {}) };
  logger[level](fields, data.length > 65536 ? `${data.slice(0, 65536)}…` : data);
}
