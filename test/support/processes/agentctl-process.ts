import { ProcessRun } from './process-run';
import { agentctlArgs } from './toolport-paths';

export interface AgentctlTokens {
  session: string;
  mcp: string;
  control: string;
}

export interface AgentctlOptions {
  backendUrl: string;
  /** Passed by environment only, as an operator must: never on the command line. */
  tokens: AgentctlTokens;
  /** Flags after `agentctl --backend-url … --mcp-port 0` (`--data-dir` to find the backend again after a restart). */
  args?: string[];
  /** Its working folder; a sweep finds a process by its cwd as well as by its command line. */
  cwd?: string;
  /** More environment: the session identity, a snapshot file, NODE_OPTIONS. Nothing else of this process's leaks in. */
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  /** The arguments after `node` that start it (default agentctlArgs(): `bin/toolport agentctl`). */
  command?: string[];
}

export interface RunningAgentctl {
  pid: number;
  mcpUrl: string;
  /** Null when it serves no control API (no control token, or `--no-control-api`). */
  controlUrl: string | null;
  /** Spawn → ready line, ms. */
  launchMs: number;
  run: ProcessRun;
  stderr(): string;
  /** Signals its process group and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `toolport agentctl` (or the standalone file, see agentctlArgs) in its own process group, as an operator would, and resolves on its one ready line. */
export async function startAgentctl(options: AgentctlOptions): Promise<RunningAgentctl> {
  const launched = performance.now();
  const run = new ProcessRun(
    process.execPath,
    [...(options.command ?? agentctlArgs()), '--backend-url', options.backendUrl, '--mcp-port', '0', ...(options.args ?? [])],
    {
      cwd: options.cwd,
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TOOLPORT_LOG_LEVEL: 'info',
        ...options.env,
        TOOLPORT_SESSION_TOKEN: options.tokens.session,
        TOOLPORT_MCP_TOKEN: options.tokens.mcp,
        TOOLPORT_CONTROL_TOKEN: options.tokens.control,
      },
    },
  );
  try {
    const [line] = await run.waitForStdout(/^.*\n/, options.readyTimeoutMs ?? 15_000, 'the agentctl ready line');
    const ready = parseReady(line);
    return { pid: run.pid, ...ready, launchMs: performance.now() - launched, run, stderr: () => run.stderr(), stop: (signal = 'SIGTERM') => run.stop(signal) };
  } catch (error) {
    await run.stop('SIGKILL');
    throw error;
  }
}

function parseReady(line: string): { mcpUrl: string; controlUrl: string | null } {
  try {
    const ready = JSON.parse(line) as { mcp_url: string; control_url: string | null };
    return { mcpUrl: ready.mcp_url, controlUrl: ready.control_url };
  } catch {
    throw new Error(`agentctl printed ${line.trim()} where its ready line belongs`);
  }
}
