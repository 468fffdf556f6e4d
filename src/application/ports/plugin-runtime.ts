import type { JsonObject } from '../../domain/json';
import type { SessionIdentity } from '../../domain/session';
import type { HostGrant, HostPlacement } from './host-access';
import type { TraceContext } from './tracer';

/** What the runtime needs to start one version of a plugin. */
export interface PluginLaunchSpec {
  pluginId: string;
  version: string;
  /** Absolute path of the installed version's folder; the working directory of the process. */
  installDir: string;
  /** Absolute path of the executable to run. */
  executable: string;
  args: string[];
  /** Per-plugin data folder, kept across versions (`TOOLPORT_PLUGIN_DATA_DIR`). */
  dataDir: string;
  /**
   * The Host API for each process start (restarts included): the runtime calls it before
   * spawning, passes the grant as TOOLPORT_HOST_ADDR / TOOLPORT_HOST_TOKEN, and releases it
   * once that process has exited. A sandboxed start passes where the socket must be (its
   * private TMPDIR). A rejection fails that start. Absent: no Host API.
   */
  hostGrant?: (placement?: HostPlacement) => Promise<HostGrant>;
  /**
   * Checks the installed files before each process start (restarts included), before the Host
   * grant and the spawn: a rejection fails that start with its message and nothing runs
   * (docs/lifecycle.md §13). Absent: nothing is checked.
   */
  checkFiles?: () => Promise<void>;
  /**
   * What the sandbox lets this start reach beyond its own folders (docs/lifecycle.md, sandbox):
   * resolved before each start from the manifest's granted `permissions`, every path an
   * existing, checked realpath. Absent: nothing beyond the plugin's own folders, no network.
   */
  permissions?: () => Promise<LaunchPermissions>;
  /**
   * MCP server plugins only (`runtime.type: mcp-stdio`): called with each complete tool list
   * of a start (before start() resolves) and after each re-list the server's
   * `notifications/tools/list_changed` causes. Absent: lists are not reported.
   */
  onServerTools?: (listing: ServerToolListing) => void;
  /**
   * Present exactly for an MCP server plugin (`runtime.type: mcp-stdio`): the runtime speaks MCP
   * over the process's stdio instead of go-plugin, gives it no Host API, and sets `env` (its
   * manifest's `runtime.env`, substituted) after the allow-list and TOOLPORT_PLUGIN_DATA_DIR.
   * `args` are then already substituted too.
   */
  mcpServer?: { env: Record<string, string> };
}

/** A start's granted reach, paths already substituted, resolved to realpaths and checked. */
export interface LaunchPermissions {
  /** Whether the process shares the host's network namespace. */
  network: boolean;
  /** Absolute host paths bound read-only at the same path. */
  readPaths: string[];
  /** Absolute host paths bound read-write at the same path. */
  writePaths: string[];
  /** Names of backend environment variables passed through. */
  env: string[];
}

/** One running (supervised) instance of a plugin version. */
export interface PluginInstance {
  /** Unique per start() call, so two versions of one plugin can overlap during an upgrade. */
  readonly instanceId: string;
  readonly pluginId: string;
  readonly version: string;
  /**
   * True when the host speaks to the plugin over mutual TLS (go-plugin's AutoMTLS,
   * docs/plugin-protocol.md §4); false for a plaintext plugin, which other local users may be able to reach.
   */
  readonly tls: boolean;
  /**
   * Where the host reaches the plugin's gRPC server: a unix socket in a private folder, or a
   * TCP port on 127.0.0.1 (docs/plugin-protocol.md §4); absent when the runtime does not say.
   */
  readonly network?: 'unix' | 'tcp';
  /** The current process id (changes after a restart); undefined while none runs. */
  pid(): number | undefined;
  /** When the current process started (ISO 8601 UTC); undefined while none runs or when the runtime does not say. */
  startedAt?(): string | undefined;
}

/** Whom a call is for: the session's identity and the name of its profile. */
export interface PluginCallContext extends SessionIdentity {
  profile: string;
}

export interface PluginCall {
  invocationId: string;
  /** The plugin-local tool name. */
  localName: string;
  /** MCP server plugins: the server's original tool name the local name was imported from. */
  serverName?: string;
  /** A JSON object as text, already validated. */
  argumentsJson: string;
  context: PluginCallContext;
  /** Milliseconds until the call is abandoned with TOOL_TIMEOUT. */
  timeoutMs: number;
  /** Aborting it cancels the call all the way to the plugin. */
  signal: AbortSignal;
  /** Sent as gRPC metadata `traceparent` / `tracestate`, so the plugin's spans join the trace. */
  trace?: TraceContext;
}

export interface PluginCallResult {
  text: string;
  /** JSON object text; '' means none. */
  structuredContentJson: string;
  isError: boolean;
  /**
   * Every MCP content block the agent gets, verbatim, as compact JSON array text; '' or
   * absent: one text block of `text`. A gRPC plugin's are its `text` block followed by its
   * `content_json` blocks; an MCP server's are its result's `content` as given, with no text
   * block required (docs/plugin-protocol.md).
   */
  contentJson?: string;
}

/** What an MCP server plugin's last complete `tools/list` gave (every page), with its `initialize` answer. */
export interface ServerToolListing {
  /** `serverInfo` of the last successful `initialize`. */
  server: { name: string; version: string };
  /** The server's tools as it sent them (raw MCP tool objects), before any import rule. */
  tools: JsonObject[];
}

/**
 * Why a running instance went to `error`: its process exited, it failed its health checks in
 * a row, or a restart of it did not come up.
 */
export type PluginFailureCause = 'exited' | 'unhealthy' | 'start_failed';

/**
 * A status change of a supervised instance: `error` when its process exited or failed its
 * health checks (the runtime then restarts it with backoff), `active` when it came back,
 * `stopped` after stop(). `restartCount` counts restarts since it was last stable.
 */
export interface PluginStatusEvent {
  instance: PluginInstance;
  status: 'active' | 'error' | 'stopped';
  reason: string | null;
  /** For `error`, what went wrong, in one word a metric can use as a label (`reason` says it in full). */
  cause?: PluginFailureCause;
  restartCount: number;
  /** True once restarts are exhausted: the instance stays down until started again. */
  gaveUp: boolean;
}

/** How a plugin runs, or would run, here (docs/http-api.md §4): its record's `sandbox` and `uid`. */
export interface SandboxFacts {
  /** `bwrap` in bubblewrap, `none` unsandboxed. */
  mode: 'bwrap' | 'none';
  /** True when its process has the host's network (always with `none`). */
  network: boolean;
  /** The user id of its own it runs as under a root backend; null when it runs as the backend's user. */
  uid: number | null;
}

/**
 * Starts, supervises, calls and stops plugin processes.
 */
export abstract class PluginRuntime {
  /**
   * How `pluginId` runs or would run, granted the network or not. Never throws. A runtime
   * without a sandbox runs plugins unsandboxed as the backend's user.
   */
  sandboxFacts(pluginId: string, network: boolean): SandboxFacts {
    void pluginId;
    void network;
    return { mode: 'none', network: true, uid: null };
  }

  /**
   * Starts an instance and resolves once it passed its handshake and first health check.
   * From then on it is supervised until stop(). Throws PluginStartError (with exit code and
   * the last 20 stderr lines) when it does not come up; nothing is left running then.
   */
  abstract start(spec: PluginLaunchSpec): Promise<PluginInstance>;

  /** Stops the instance (graceful, then forced) and resolves when its process is gone. Idempotent. */
  abstract stop(instance: PluginInstance): Promise<void>;

  /**
   * Makes exactly one call, never retried. Throws InvocationError with TOOL_TIMEOUT,
   * PLUGIN_CRASHED (process gone or transport failure), PLUGIN_ERROR (the live plugin answered
   * a gRPC error status; the instance stays up), RESULT_TOO_LARGE, BAD_RESULT (content blocks
   * the agent could not read), PLUGIN_NOT_ACTIVE (instance not running) or CANCELLED (signal
   * aborted).
   */
  abstract invoke(instance: PluginInstance, call: PluginCall): Promise<PluginCallResult>;

  /**
   * MCP server plugins: lists the running server's tools again (every page) and reports the
   * listing to the start's `onServerTools` as well. Rejects for a plugin that is not an MCP
   * server or not running.
   */
  relistTools(instance: PluginInstance): Promise<ServerToolListing> {
    void instance;
    return Promise.reject(new Error('this runtime runs no MCP server plugins'));
  }

  /** Registers a listener for status events; returns the function that removes it. */
  abstract onStatus(listener: (event: PluginStatusEvent) => void): () => void;

  /** Stops every instance; used at shutdown. */
  abstract stopAll(): Promise<void>;
}
