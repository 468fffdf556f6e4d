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

/**
 * An agentctl process as recorded: its pid and its start time (clock ticks after boot), so a
 * pid the system has since given to another process is never taken for it. A null start time
 * (a record older than start times) cannot be checked, so it is never signalled.
 */
export interface AgentctlProcess {
  pid: number;
  startTime: number | null;
}

export interface LaunchedAgentctl extends AgentctlProcess {
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
   * when it does not run now (its pid is gone or belongs to another process), else a promise
   * that resolves once it has exited.
   */
  abstract watch(agentctl: AgentctlProcess): Promise<{ code: number | null; signal: string | null }> | undefined;

  /**
   * Stops following agentctls (shutdown): promises from watch() that have not resolved yet
   * never will, so nothing acts on the store after it closed.
   */
  dispose(): void {}

  /**
   * Stops the agentctl (SIGTERM, then SIGKILL) and resolves once it is gone. Its identity is
   * checked before each signal: a pid reused by another process is left alone.
   */
  abstract stop(agentctl: AgentctlProcess): Promise<void>;
}
