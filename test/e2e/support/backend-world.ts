import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { apiClient, startBackend, type BackendOptions, type RunningBackend } from './backend-process';
import { connectAgent, type McpAgent } from './mcp-agent';
import { processesMentioning, waitForNoProcesses, type ProcessEntry } from './processes';

export interface StartedSession {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: string;
  status: string;
  mcp?: { url: string; token: string };
  agentctl?: { backend_url: string; session_token: string };
}

/**
 * One temporary folder holding a backend data dir and plugin packages, and everything a test
 * started in it. `teardown` kills whatever is left (by process group), reaps it and reports
 * any process that still mentions the folder.
 */
export class BackendWorld {
  private made: string | undefined;
  readonly backends: RunningBackend[] = [];
  private readonly agents: McpAgent[] = [];
  private readonly stopped = new Set<number>();
  backend!: RunningBackend;

  constructor(private readonly serveArgs: string[] = []) {}

  /** Made on first use, so a describe block filtered out by -t leaves no folder behind. */
  get root(): string {
    this.made ??= mkdtempSync(join(tmpdir(), 'toolport-e2e-'));
    return this.made;
  }

  get dataDir(): string {
    return join(this.root, 'data');
  }

  async start(options: Partial<BackendOptions> = {}): Promise<RunningBackend> {
    const backend = await startBackend({ dataDir: this.dataDir, ...options, args: [...this.serveArgs, ...(options.args ?? [])] });
    this.backends.push(backend);
    this.backend = backend;
    return backend;
  }

  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    return apiClient(this.backend.url, this.backend.token)<T>(method, path, body);
  }

  /** Installs the package at `dir` and expects it active. */
  async install(dir: string): Promise<any> {
    const answer = await this.api('POST', '/api/v1/plugins', { path: dir });
    if (answer.status !== 201) throw new Error(`install failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  async session(surface: string, task = `task-${surface}`, launch = true): Promise<StartedSession> {
    const answer = await this.api<StartedSession>('POST', '/api/v1/sessions', { task_id: task, workspace_id: 'ws-e2e', surface, launch });
    if (answer.status !== 201) throw new Error(`session start failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  async agent(session: StartedSession): Promise<McpAgent> {
    const agent = await connectAgent(session.mcp!.url, session.mcp!.token);
    this.agents.push(agent);
    return agent;
  }

  /** The pid of the agentctl the backend launched for a session. */
  async agentctlPid(sessionId: string): Promise<number> {
    const sessions = (await this.api<Array<{ session_id: string; agentctl_pid: number | null }>>('GET', '/api/v1/sessions')).body;
    const pid = sessions.find((s) => s.session_id === sessionId)?.agentctl_pid;
    if (!pid) throw new Error(`session ${sessionId} has no agentctl pid`);
    return pid;
  }

  /** Pids of the running processes of one plugin (any version). */
  pluginPids(pluginId: string): number[] {
    return processesMentioning(join(this.dataDir, 'plugins', pluginId) + '/')
      .filter((p) => p.state !== 'Z')
      .map((p) => p.pid)
      .sort();
  }

  /** The control API of a launched session's agentctl, read from the backend's SQLite store. */
  control(sessionId: string): { url: string; token: string } {
    const db = new Database(join(this.dataDir, 'toolport.db'), { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT control_url, control_token FROM sessions WHERE session_id = ?').get(sessionId) as
        | { control_url: string | null; control_token: string | null }
        | undefined;
      if (!row?.control_url || !row.control_token) throw new Error(`no control API recorded for ${sessionId}`);
      return { url: row.control_url, token: row.control_token };
    } finally {
      db.close();
    }
  }

  /** SIGSTOPs a process; teardown SIGCONTs it. */
  pause(pid: number): void {
    process.kill(pid, 'SIGSTOP');
    this.stopped.add(pid);
  }

  resume(pid: number): void {
    if (this.stopped.delete(pid)) process.kill(pid, 'SIGCONT');
  }

  async teardown(): Promise<ProcessEntry[]> {
    if (this.made === undefined) return [];
    for (const pid of [...this.stopped]) {
      try {
        this.resume(pid);
      } catch {
        // already gone
      }
    }
    await Promise.all(this.agents.splice(0).map((agent) => Promise.race([agent.close(), new Promise((done) => setTimeout(done, 1000))])));
    for (const backend of this.backends) backend.child.kill('SIGKILL');
    await Promise.all(this.backends.map((backend) => backend.exited));
    killAll(this.root);
    const left = await waitForNoProcesses(this.root, 5000);
    rmSync(this.root, { recursive: true, force: true });
    return left;
  }
}

/** SIGKILLs every process mentioning `marker`, group first (plugins and agentctls lead their own). */
export function killAll(marker: string): void {
  for (const entry of processesMentioning(marker)) {
    for (const target of [-entry.pid, entry.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // not a group leader, or gone already
      }
    }
  }
}

/** Polls `check` until it returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
