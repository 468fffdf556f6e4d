import type { HostCapabilities } from '../../domain/host-capabilities';
import type { SealedValue } from './secret-box';

/** What one plugin process may ask of its host: whom it acts for, what its manifest grants, the configuration it was started with. */
export interface HostProfile {
  pluginId: string;
  version: string;
  capabilities: HostCapabilities;
  /** The configuration this process was started with (GetConfig answers it), sealed; null when none was ever set. */
  config: SealedValue | null;
}

/**
 * A call in flight to one process (docs/plugin-protocol.md, "Host API scopes"): what the host
 * takes a WORKSPACE or TASK request's reach from, and GetConfig's workspace.
 */
export interface HostCallBinding {
  invocationId: string;
  workspaceId: string;
  taskId: string;
  sessionId: string;
  /** The session's profile name. */
  profile: string;
}

/** The Host API for one process start (docs/plugin-protocol.md §13): where it listens and the token that names the plugin. */
export interface HostGrant {
  /** A gRPC target, `unix:/abs/path` or `127.0.0.1:<port>`: the process's TOOLPORT_HOST_ADDR. */
  address: string;
  /** The process's TOOLPORT_HOST_TOKEN: fresh for this start, never logged. */
  token: string;
  /**
   * Registers a call in flight to this grant's process: call it just before sending the call's
   * InvokeAgentTool, and the function it returns once the answer came, or the call was
   * cancelled or timed out. Until then the process's Host requests may name the call.
   */
  admit(call: HostCallBinding): () => void;
  /** Ends the grant: the token stops working and the address closes. Call it once the process exited; idempotent. */
  release(): Promise<void>;
}

/**
 * Where a sandboxed start's Host API listens: a socket in that start's private TMPDIR (the only
 * folder it shares with the host), connectable by `uid` when the plugin runs as its own user.
 */
export interface HostPlacement {
  socketDir: string;
  uid?: number;
}

/**
 * Serves the Host API to plugin processes. A runtime asks for one grant per process start
 * (restarts included) through PluginLaunchSpec.hostGrant, and releases it when that process
 * exits, so a token works exactly as long as its process runs.
 */
export abstract class HostAccess {
  /**
   * A fresh grant for `profile`, listening in `placement.socketDir` when given (else where the
   * Host API keeps its own sockets); rejects when no address can be opened (the start then fails).
   */
  abstract grant(profile: HostProfile, placement?: HostPlacement): Promise<HostGrant>;

  /** Releases every grant still open and stops serving (shutdown, once the plugins are stopped). Idempotent. */
  abstract close(): Promise<void>;
}
