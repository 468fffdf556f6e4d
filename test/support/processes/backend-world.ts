import { join } from 'node:path';
import type { StartedSession } from '../../../src/application/sessions/start-session';
import { adminApi, type AdminApi, type ApiAnswer } from '../clients/admin-api';
import type { McpAgent } from '../clients/mcp-agent';
import type { BackendOptions, RunningBackend } from './backend-process';
import { ProcessSandbox } from './process-sandbox';
import { processesMentioning, type ProcessEntry } from './process-table';
import { waitForNoProcesses } from './process-sweep';
import { pluginFolders } from './toolport-paths';

export type { StartedSession };

export interface BackendWorldOptions {
  /** Folder name prefix under the system temp folder. */
  prefix?: string;
  /** The data dir's name inside the sandbox folder. */
  dataDirName?: string;
  /** The workspace every session started by `session()` belongs to. */
  workspace?: string;
}

/**
 * A sandbox holding one backend data dir (and the plugin packages a test writes next to it),
 * the backends started on it one after another, and the §9 API of the latest.
 */
export class BackendWorld extends ProcessSandbox {
  readonly backends: RunningBackend[] = [];
  backend!: RunningBackend;
  private client: AdminApi | undefined;

  constructor(
    private readonly serveArgs: string[] = [],
    private readonly options: BackendWorldOptions = {},
  ) {
    super(options.prefix);
  }

  get dataDir(): string {
    return join(this.root, this.options.dataDirName ?? 'data');
  }

  /** Starts `toolport serve` on the data dir with the world's flags, then `options.args`. */
  async start(options: Partial<BackendOptions> = {}): Promise<RunningBackend> {
    const backend = await this.startBackend({ dataDir: this.dataDir, ...options, args: [...this.serveArgs, ...(options.args ?? [])] });
    this.backends.push(backend);
    this.backend = backend;
    this.client = adminApi(backend.url, backend.token);
    return backend;
  }

  /** A call of the latest backend's §9 API. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
    if (!this.client) throw new Error('no backend started in this world');
    return this.client<T>(method, path, body);
  }

  /** Installs the package at `dir` and expects it active. */
  async install(dir: string, grants?: string[]): Promise<any> {
    const answer = await this.api('POST', '/api/v1/plugins', grants ? { path: dir, grants } : { path: dir });
    if (answer.status !== 201) throw new Error(`install failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  async session(surface: string, task = `task-${surface}`, launch = true): Promise<StartedSession> {
    const body = { task_id: task, workspace_id: this.options.workspace ?? 'ws-e2e', surface, launch };
    const answer = await this.api<StartedSession>('POST', '/api/v1/sessions', body);
    if (answer.status !== 201) throw new Error(`session start failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** An agent on a launched session's MCP endpoint. */
  agent(session: StartedSession, name?: string): Promise<McpAgent> {
    if (!session.mcp) throw new Error(`session ${session.session_id} was not launched: it has no MCP endpoint`);
    return this.connect(session.mcp.url, session.mcp.token, name);
  }

  /** Launched sessions on `surfaces` (tasks `t-0`, `t-1`, …), started one after another, each with an agent connected. */
  async openSessions(surfaces: string[]): Promise<{ sessions: StartedSession[]; agents: McpAgent[] }> {
    const opened = { sessions: [] as StartedSession[], agents: [] as McpAgent[] };
    for (const [index, surface] of surfaces.entries()) {
      const session = await this.session(surface, `t-${index}`);
      opened.sessions.push(session);
      opened.agents.push(await this.agent(session));
    }
    return opened;
  }

  /**
   * Stops the latest backend with SIGTERM, as an operator would, then tears down. Answers its
   * exit code, what outlived the graceful stop (seen before the sweep) and what the sweep left.
   */
  async gracefulTeardown(): Promise<{ exitCode: number | null | undefined; outlived: ProcessEntry[]; swept: ProcessEntry[] }> {
    await this.closeAgents();
    const exitCode = await this.backend?.stop('SIGTERM');
    const outlived = await waitForNoProcesses(this.root);
    return { exitCode, outlived, swept: await this.teardown() };
  }

  /** The pid of the agentctl the backend launched for a session. */
  async agentctlPid(sessionId: string): Promise<number> {
    const sessions = (await this.api<Array<{ session_id: string; agentctl_pid: number | null }>>('GET', '/api/v1/sessions')).body;
    const pid = sessions.find((s) => s.session_id === sessionId)?.agentctl_pid;
    if (!pid) throw new Error(`session ${sessionId} has no agentctl pid`);
    return pid;
  }

  /**
   * Pids of the running processes of one plugin (any version) the backend started: a
   * sandboxed plugin's bubblewrap, whose own processes (its namespace's init and the plugin)
   * are left out, as they are of the record's `pid`.
   */
  pluginPids(pluginId: string): number[] {
    const running = processesMentioning(join(pluginFolders(this.dataDir), 'plugins', pluginId) + '/').filter((p) => p.state !== 'Z');
    const pids = new Set(running.map((p) => p.pid));
    return running
      .filter((p) => !pids.has(p.ppid))
      .map((p) => p.pid)
      .sort();
  }
}
