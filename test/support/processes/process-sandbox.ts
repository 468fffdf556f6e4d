import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAgent, type McpAgent } from '../clients/mcp-agent';
import { startAgentctl, type AgentctlOptions, type RunningAgentctl } from './agentctl-process';
import { startBackend, type BackendOptions, type RunningBackend } from './backend-process';
import type { ProcessRun } from './process-run';
import type { ProcessEntry } from './process-table';
import { killMentioning, waitForNoProcesses } from './process-sweep';

export interface TeardownOptions {
  /**
   * SIGTERM what it started and give each this long to exit before the SIGKILL (a graceful
   * stop also stops the agentctls and plugins a backend started). Without it, SIGKILL at once.
   */
  graceMs?: number;
}

/**
 * One temporary folder and everything started in it. Its path is the marker every process
 * carries (in its command line or as its cwd), so teardown finds orphans too: it kills what
 * is left, reaps it, removes the folder and answers any process that still mentions it.
 */
export class ProcessSandbox {
  private made: string | undefined;
  private readonly runs: ProcessRun[] = [];
  private readonly agents: McpAgent[] = [];
  private readonly paused = new Set<number>();

  constructor(private readonly prefix = 'toolport-e2e-') {}

  /** Made on first use, so a describe block filtered out by -t leaves no folder behind. */
  get root(): string {
    // The real path: a process's cwd reads back resolved, and the marker must match it.
    this.made ??= realpathSync(mkdtempSync(join(tmpdir(), this.prefix)));
    return this.made;
  }

  /** Stopped and reaped by teardown. */
  track(run: ProcessRun): ProcessRun {
    this.runs.push(run);
    return run;
  }

  async startBackend(options: BackendOptions): Promise<RunningBackend> {
    const backend = await startBackend(options);
    this.track(backend.run);
    return backend;
  }

  /** An agentctl started as an operator would, its cwd in this folder unless told otherwise. */
  async startAgentctl(options: AgentctlOptions): Promise<RunningAgentctl> {
    const agentctl = await startAgentctl({ cwd: this.root, ...options });
    this.track(agentctl.run);
    return agentctl;
  }

  async connect(url: string, token: string, name?: string): Promise<McpAgent> {
    const agent = await connectAgent(url, token, name);
    this.agents.push(agent);
    return agent;
  }

  /** SIGSTOPs a process; teardown SIGCONTs it. */
  pause(pid: number): void {
    process.kill(pid, 'SIGSTOP');
    this.paused.add(pid);
  }

  resume(pid: number): void {
    if (this.paused.delete(pid)) process.kill(pid, 'SIGCONT');
  }

  /** Closes every agent it connected; one whose server is frozen or gone gets a second, then is left. */
  async closeAgents(): Promise<void> {
    await Promise.all(this.agents.splice(0).map((agent) => within(agent.close(), 1000)));
  }

  /** Ends every process it started (their groups, for group leaders) and waits for each exit. */
  async stopStarted(options: TeardownOptions = {}): Promise<void> {
    const runs = this.runs.splice(0);
    if (options.graceMs !== undefined) await Promise.all(runs.map((run) => stopGracefully(run, options.graceMs!)));
    await Promise.all(runs.map((run) => run.stop('SIGKILL')));
  }

  /**
   * Resumes what it paused, closes its agents, ends what it started, then SIGKILLs anything
   * still mentioning the folder (orphans of a killed backend included), reaps, and removes the
   * folder. Answers what was still there after all that: a test expects it empty.
   */
  async teardown(options: TeardownOptions = {}): Promise<ProcessEntry[]> {
    for (const pid of [...this.paused]) {
      try {
        this.resume(pid);
      } catch {
        // already gone
      }
    }
    await this.closeAgents();
    await this.stopStarted(options);
    if (this.made === undefined) return [];
    // After a graceful stop, the processes it stopped get a moment to leave by themselves.
    if (options.graceMs !== undefined) await waitForNoProcesses(this.made, 3000);
    killMentioning(this.made);
    const left = await waitForNoProcesses(this.made, 5000);
    rmSync(this.made, { recursive: true, force: true });
    this.made = undefined;
    return left;
  }
}

async function stopGracefully(run: ProcessRun, graceMs: number): Promise<void> {
  run.signal('SIGTERM');
  await within(run.exited, graceMs);
}

/** Waits for `promise` at most `ms`, leaving no timer behind. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
