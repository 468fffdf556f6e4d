import { readFileSync } from 'node:fs';
import { UsageError } from '../adapters/cli/exit-codes';
import { isHttpUrl } from '../adapters/cli/http-url';
import { readPackageVersion } from '../adapters/cli/package-version';
import type { SessionIdentity } from '../domain/session';
import { isSurface } from '../domain/surfaces';
import { parseSnapshotText } from '../domain/snapshot-text';

/** What an agentctl's launch says, read from its flags and environment (tokens come from the environment only). */
export interface AgentctlLaunch {
  sessionToken: string;
  /** '' in stdio mode without TOOLPORT_MCP_TOKEN. */
  mcpToken: string;
  /** '' when it serves no control API. */
  controlToken: string;
  /** What the launch says about the session (complete when the backend launched it). */
  launchedAs: Partial<SessionIdentity>;
  /** TOOLPORT_SNAPSHOT_FILE, the snapshot to serve before the first pull. */
  snapshotFile?: string;
}

/** Reads the launch, or throws UsageError (exit 2) naming what is missing or wrong. */
export function readAgentctlLaunch(backendUrl: string, env: NodeJS.ProcessEnv, flags: { stdio: boolean; noControlApi: boolean }): AgentctlLaunch {
  checkBackendUrl(backendUrl);
  const sessionToken = requiredEnv(env, 'TOOLPORT_SESSION_TOKEN');
  const mcpToken = flags.stdio ? (env.TOOLPORT_MCP_TOKEN ?? '') : requiredEnv(env, 'TOOLPORT_MCP_TOKEN');
  // Catalog changes come over the link; the control API is for an operator holding its token.
  const controlToken = flags.noControlApi ? '' : (env.TOOLPORT_CONTROL_TOKEN ?? '');
  const launch: AgentctlLaunch = { sessionToken, mcpToken, controlToken, launchedAs: launchIdentity(env) };
  if (env.TOOLPORT_SNAPSHOT_FILE) launch.snapshotFile = env.TOOLPORT_SNAPSHOT_FILE;
  return launch;
}

/** The launch snapshot file's JSON; UsageError when it cannot be read. */
export function readSnapshotFile(path: string): unknown {
  try {
    return parseSnapshotText(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the launch snapshot ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** This build's version, or 0.0.0 when package.json cannot be read. */
export function agentctlVersion(): string {
  try {
    return readPackageVersion();
  } catch {
    return '0.0.0';
  }
}

function requiredEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new UsageError(`${name} is not set; agentctl takes its tokens from the environment only (toolport session start --no-launch prints them)`);
  return value;
}

/**
 * `--backend-url` is one http(s) URL or several, comma-separated (replicas, docs/cli.md): anything
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
