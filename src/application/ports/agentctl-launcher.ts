import type { CatalogSnapshot } from '../../domain/catalog';
import type { SessionIdentity } from '../../domain/session';

export interface AgentctlLaunchSpec {
  identity: SessionIdentity;
  backendUrl: string;
  sessionToken: string;
  mcpToken: string;
  /** The snapshot the agentctl holds before it answers `tools/list`. */
  snapshot: CatalogSnapshot;
}

export interface LaunchedAgentctl {
  pid: number;
  mcpUrl: string;
  /** Resolves (never rejects) when the process has exited, with its exit code or signal. */
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** Starts and stops local agentctl processes for sessions. */
export abstract class AgentctlLauncher {
  /**
   * Starts an agentctl and resolves once it accepts MCP connections and holds the snapshot.
   * Throws ToolportError AGENTCTL_START_FAILED otherwise, leaving no process.
   */
  abstract launch(spec: AgentctlLaunchSpec): Promise<LaunchedAgentctl>;

  /**
   * Follows an agentctl that may have been started by an earlier backend process: undefined
   * when no such agentctl runs now, else a promise that resolves once it has exited.
   */
  abstract watch(pid: number): Promise<{ code: number | null; signal: string | null }> | undefined;

  /**
   * Stops following agentctls (shutdown): promises from watch() that have not resolved yet
   * never will, so nothing acts on the store after it closed.
   */
  dispose(): void {}

  /** Stops the agentctl with this pid (SIGTERM, then SIGKILL) and resolves once it is gone. */
  abstract stop(pid: number): Promise<void>;
}
