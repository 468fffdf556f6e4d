import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { AgentctlLauncher, type AgentctlLaunchSpec, type AgentctlProcess, type LaunchedAgentctl } from '../../application/ports/agentctl-launcher';
import type { Logger } from '../../application/ports/logger';
import { allowListedEnvironment } from '../../domain/environment-allow-list';
import { ToolportError } from '../../domain/errors';
import { isSameProcess, processStartTime } from '../shared/process-identity';
import { isProcessAlive } from '../shared/process-liveness';
import { waitForExit } from './process-exit';

export interface AgentctlCommand {
  /** Usually `process.execPath`. */
  executable: string;
  /** Arguments before the agentctl's own, e.g. `[<path to bin/toolport>, 'agentctl']`. */
  args: string[];
}

export interface ProcessAgentctlLauncherOptions {
  command: AgentctlCommand;
  /** Where launch snapshots are written (mode 0600) until the agentctl has read them. */
  runDir: string;
  /** `TOOLPORT_*` settings passed on to every agentctl. */
  settingsEnv: Record<string, string>;
  readyTimeoutMs: number;
  /** Passed as `--data-dir` so an agentctl re-reads backend.json when it reconnects. */
  dataDir?: string;
}

interface ReadyLine {
  event: 'ready';
  mcp_url: string;
  pid: number;
}

/**
 * Starts each session's agentctl as a child process in its own process group, so it keeps
 * serving if the backend dies (docs/operations.md) and a terminal's Ctrl-C reaches only the backend,
 * which then stops it. Tokens and identity travel by environment, never on the command line.
 */
export class ProcessAgentctlLauncher extends AgentctlLauncher {
  private readonly watches = new Set<NodeJS.Timeout>();
  /** The agentctls this backend spawned that have not exited yet. */
  private readonly children = new Set<ChildProcess>();

  constructor(
    private readonly options: ProcessAgentctlLauncherOptions,
    private readonly logger: Logger,
  ) {
    super();
  }

  async launch(spec: AgentctlLaunchSpec): Promise<LaunchedAgentctl> {
    mkdirSync(this.options.runDir, { recursive: true, mode: 0o700 });
    const snapshotFile = join(this.options.runDir, `${spec.identity.session_id}.snapshot.json`);
    writeFileSync(snapshotFile, JSON.stringify(spec.snapshot), { mode: 0o600 });
    // No control API: catalog changes reach it over its link, and nobody holds a token for it.
    const args = [...this.options.command.args, '--backend-url', spec.backendUrl, '--mcp-host', '127.0.0.1', '--mcp-port', '0', '--no-control-api'];
    if (this.options.dataDir) args.push('--data-dir', this.options.dataDir);
    const child = spawn(this.options.command.executable, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...allowListedEnvironment(process.env, 'all'),
        ...this.options.settingsEnv,
        TOOLPORT_SESSION_TOKEN: spec.sessionToken,
        TOOLPORT_MCP_TOKEN: spec.mcpToken,
        TOOLPORT_TASK_ID: spec.identity.task_id,
        TOOLPORT_SESSION_ID: spec.identity.session_id,
        TOOLPORT_WORKSPACE_ID: spec.identity.workspace_id,
        TOOLPORT_SURFACE: spec.identity.surface,
        TOOLPORT_SNAPSHOT_FILE: snapshotFile,
      },
    });
    const exited = waitForExit(child);
    this.children.add(child);
    void exited.then(() => this.children.delete(child));
    try {
      const ready = await this.readReadyLine(child, exited);
      this.logger.info({ session_id: spec.identity.session_id, agentctl_pid: ready.pid }, 'agentctl ready');
      return { pid: child.pid!, startTime: processStartTime(child.pid!) ?? null, mcpUrl: ready.mcp_url, exited };
    } catch (error) {
      // Our own child, not reaped yet: its pid cannot have been reused.
      await this.stop({ pid: child.pid ?? -1, startTime: processStartTime(child.pid ?? -1) ?? null });
      await exited;
      throw error;
    } finally {
      rmSync(snapshotFile, { force: true });
    }
  }

  private readReadyLine(child: ChildProcess, exited: Promise<{ code: number | null; signal: string | null }>): Promise<ReadyLine> {
    return new Promise((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      const fail = (message: string) => {
        clearTimeout(timer);
        lines.close();
        reject(new ToolportError('AGENTCTL_START_FAILED', message));
      };
      const timer = setTimeout(() => fail(`agentctl was not ready within ${this.options.readyTimeoutMs} ms`), this.options.readyTimeoutMs);
      lines.on('line', (line) => {
        let parsed: Partial<ReadyLine> | undefined;
        try {
          parsed = JSON.parse(line) as Partial<ReadyLine>;
        } catch {
          parsed = undefined;
        }
        if (parsed?.event === 'ready' && typeof parsed.mcp_url === 'string') {
          clearTimeout(timer);
          lines.close();
          resolve(parsed as ReadyLine);
        } else {
          fail('agentctl printed something other than its ready line on stdout');
        }
      });
      void exited.then(({ code, signal }) => fail(`agentctl exited before it was ready (code ${code}, signal ${signal})`));
    });
  }

  watch(agentctl: AgentctlProcess): Promise<{ code: number | null; signal: string | null }> | undefined {
    if (!isRunning(agentctl)) return undefined;
    // Not our child (an earlier backend started it): its exit can only be polled for.
    return new Promise((resolve) => {
      const timer = setInterval(() => {
        if (isRunning(agentctl)) return;
        clearInterval(timer);
        this.watches.delete(timer);
        resolve({ code: null, signal: null });
      }, 500);
      timer.unref();
      this.watches.add(timer);
    });
  }

  /**
   * Also lets go of the agentctls it spawned: one left serving (another replica takes it over,
   * docs/operations.md §10) must not keep the backend's process from exiting, as a child's
   * handle and its stdout pipe would.
   */
  override dispose(): void {
    for (const timer of this.watches) clearInterval(timer);
    this.watches.clear();
    for (const child of this.children) {
      child.unref();
      (child.stdout as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    }
  }

  async stop(agentctl: AgentctlProcess): Promise<void> {
    if (!isRunning(agentctl)) return;
    signalGroup(agentctl.pid, 'SIGTERM');
    if (await waitUntilGone(agentctl, 3000)) return;
    if (isRunning(agentctl)) signalGroup(agentctl.pid, 'SIGKILL');
    await waitUntilGone(agentctl, 2000);
  }
}

/** Where there is no /proc (not Linux), start times cannot be read: the pid alone is checked. */
const START_TIMES_READABLE = processStartTime(process.pid) !== undefined;

/** The recorded agentctl runs now: its pid is alive and started when it was recorded. */
function isRunning(agentctl: AgentctlProcess): boolean {
  if (agentctl.pid <= 0) return false;
  if (!START_TIMES_READABLE) return isProcessAlive(agentctl.pid);
  return agentctl.startTime !== null && isSameProcess({ pid: agentctl.pid, startTime: agentctl.startTime });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // the group may be gone while the process is not (or the reverse)
    }
  }
}

/** Polls for the agentctl to disappear; works for agentctls a previous backend started, too. */
async function waitUntilGone(agentctl: AgentctlProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(agentctl)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !isRunning(agentctl);
}
