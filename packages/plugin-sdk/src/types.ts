import type { ContentBlock } from './content-blocks';
import type { CallHost } from './host-types';

/** What the host tells a tool about the call: who is calling, never taken from the arguments. */
export interface ToolContext {
  /** Unique per call; the host logs it too, so log it to correlate. */
  invocationId: string;
  taskId: string;
  sessionId: string;
  workspaceId: string;
  /** The session's surface: `kanban-task` or `office-task`. */
  surface: string;
  /**
   * The name of the session's profile, which chose the tools it sees: `default` unless the
   * session was started with another (and from a host without profiles).
   */
  profile: string;
  /** A structured logger writing JSON lines to stderr (the host turns them into its own log records). */
  log: PluginLogger;
  /**
   * The Host API for this call: the configuration merged for its workspace, the plugin's own
   * state and secrets, and `workspace` / `task` entries of this call (see CallHost).
   */
  host: CallHost;
}

/**
 * A tool's answer. The host refuses one whose `text`, `content` and `structuredContent`
 * together (UTF-8 bytes of the text, compact JSON of the rest) pass 1 MiB.
 */
export interface ToolResult {
  /** Required, not blank: the text the agent reads first (the result's first MCP text block). */
  text: string;
  /** A JSON object; must conform to the tool's `output_schema` when the manifest declares one. */
  structuredContent?: Record<string, unknown>;
  /**
   * More MCP content blocks (images, audio, resource links, embedded resources, more text),
   * passed to the agent as they are after `text`'s block. A host before revision 3 drops them,
   * so keep in `text` what the agent must read. A block of the wrong shape makes the call an
   * error result naming it.
   */
  content?: ContentBlock[];
  /** True for a failure the agent should see as a tool error (passed through as is). */
  isError?: boolean;
}

/**
 * One agent tool. `args` were already validated against the declared input schema. `signal`
 * aborts when the call is cancelled (by the agent, the deadline or the host stopping); stop
 * work then. A thrown error becomes an `isError` result carrying only the error's message.
 */
export type ToolHandler = (args: Record<string, unknown>, context: ToolContext, signal: AbortSignal) => ToolResult | string | Promise<ToolResult | string>;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured log lines on stderr; fields must never hold arguments, results or secrets. */
export interface PluginLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface ServeOptions {
  /** Tool handlers by the local tool name of the manifest's `agent_tools[].name`. */
  tools: Record<string, ToolHandler>;
  /** Lowest level written to stderr; default `info`. */
  logLevel?: LogLevel;
  /** Runs once before the process exits (host shutdown, host gone, SIGTERM); awaited for at most 1 s. */
  onShutdown?: () => void | Promise<void>;
}

/** Where a served plugin listens: the network and address of its handshake line. */
export interface ServedAddress {
  /** `unix` when the host set PLUGIN_UNIX_SOCKET_DIR (a sandboxed plugin), else `tcp`. */
  network: 'tcp' | 'unix';
  /** `127.0.0.1:<port>`, or the socket's absolute path (`<PLUGIN_UNIX_SOCKET_DIR>/plugin-<8 hex>`, mode 0600). */
  address: string;
}

/** A plugin being served. */
export interface ServedPlugin {
  /** Where it listens, as printed in the handshake. */
  readonly address: ServedAddress;
  /** The loopback port it listens on over TCP; 0 when it listens on a unix socket (see `address`). */
  readonly port: number;
  readonly log: PluginLogger;
  /** Stops serving, runs onShutdown and exits the process with code 0. */
  shutdown(reason?: string): Promise<never>;
}
