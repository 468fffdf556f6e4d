/**
 * The bench's running system: one `toolport serve` (port 0) on a temporary data dir with two
 * SDK plugins installed, sessions started through the API, and agents on the official MCP
 * client. Teardown stops the backend (which stops its agentctls and plugins) and kills and
 * reaps anything left.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiClient, startBackend, writePluginPackage, type BenchBackend } from './backend';
import { processesMentioning, waitForNoProcesses } from '../test/e2e/support/processes';
import { waitFor } from './stats';

export const ECHO_PLUGIN = 'bench.echo';
export const TOGGLE_PLUGIN = 'bench.toggle';
export const ECHO_TOOL = 'kandev_bench_echo_echo';

const PLUGIN_SOURCE = `
import { serve } from 'toolport/plugin-sdk';
void serve({ tools: {
  echo: (args) => ({ text: String(args.value) }),
  ping: () => 'pong',
} }).then((served) => served.log.info('bench plugin', { port: served.port, plugin_pid: process.pid }));
`;

function tool(name: string) {
  return {
    name,
    description: `Bench tool ${name}.`,
    surfaces: ['kanban-task'],
    input_schema: { type: 'object', properties: { value: { type: 'string' } }, required: name === 'echo' ? ['value'] : [] },
    annotations: { read_only_hint: true },
  };
}

/** An agent on one agentctl, counting list_changed with their arrival time. */
export interface BenchAgent {
  client: Client;
  listChangedAt: number[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectAgent(url: string, token: string): Promise<BenchAgent> {
  const client = new Client({ name: 'bench-agent', version: '1.0.0' });
  const listChangedAt: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChangedAt.push(performance.now());
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    client,
    listChangedAt,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

export interface BenchSession {
  sessionId: string;
  mcpUrl: string;
  mcpToken: string;
  agent: BenchAgent;
}

export class BenchWorld {
  readonly root = mkdtempSync(join(tmpdir(), 'toolport-bench-'));
  readonly dataDir = join(this.root, 'data');
  backend!: BenchBackend;
  readonly sessions: BenchSession[] = [];
  private api!: ReturnType<typeof apiClient>;

  async start(): Promise<void> {
    for (const [id, tools] of [[ECHO_PLUGIN, ['echo']], [TOGGLE_PLUGIN, ['ping']]] as const) {
      writePluginPackage(join(this.root, id), { api_version: 1, id, version: '1.0.0', agent_tools: tools.map(tool) }, PLUGIN_SOURCE);
    }
    this.backend = await startBackend(this.dataDir);
    this.api = apiClient(this.backend.url, this.backend.token);
    for (const id of [ECHO_PLUGIN, TOGGLE_PLUGIN]) {
      const answer = await this.api('POST', '/api/v1/plugins', { path: join(this.root, id) });
      if (answer.status !== 201) throw new Error(`install ${id}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }

  request<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    return this.api<T>(method, path, body);
  }

  /** The echo plugin's gRPC port and pid, from the line it logs once serving. */
  echoPlugin(): Promise<{ port: number; pid: number }> {
    return waitFor(
      () => {
        for (const line of this.backend.stderr().split('\n')) {
          if (!line.includes('"bench plugin"') || !line.includes(ECHO_PLUGIN)) continue;
          const fields = (JSON.parse(line) as { plugin_fields?: { port: number; plugin_pid: number } }).plugin_fields;
          if (fields) return { port: fields.port, pid: fields.plugin_pid };
        }
        return undefined;
      },
      10_000,
      'the echo plugin to report its port',
    );
  }

  /** Starts `count` more sessions through the API (a few at a time) with one agent each. */
  async addSessions(count: number, parallel = 4): Promise<void> {
    let left = count;
    const worker = async (): Promise<void> => {
      while (left > 0) {
        left--;
        const answer = await this.api<any>('POST', '/api/v1/sessions', {
          task_id: `bench-task-${this.sessions.length}-${Math.random().toString(16).slice(2, 8)}`,
          workspace_id: 'bench',
          surface: 'kanban-task',
        });
        if (answer.status !== 201) throw new Error(`session start: ${answer.status} ${JSON.stringify(answer.body)}`);
        const { session_id: sessionId, mcp } = answer.body;
        const agent = await connectAgent(mcp.url, mcp.token);
        this.sessions.push({ sessionId, mcpUrl: mcp.url, mcpToken: mcp.token, agent });
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  }

  async agentctlPid(sessionId: string): Promise<number> {
    const sessions = (await this.api<Array<{ session_id: string; agentctl_pid: number | null }>>('GET', '/api/v1/sessions')).body;
    const pid = sessions.find((s) => s.session_id === sessionId)?.agentctl_pid;
    if (!pid) throw new Error(`session ${sessionId} has no agentctl pid`);
    return pid;
  }

  async teardown(): Promise<void> {
    await Promise.all(this.sessions.map((s) => Promise.race([s.agent.close(), new Promise((done) => setTimeout(done, 1000))])));
    if (this.backend) {
      this.backend.child.kill('SIGTERM');
      const timer = setTimeout(() => this.backend.child.kill('SIGKILL'), 15_000);
      await this.backend.exited;
      clearTimeout(timer);
    }
    // The backend stopped its agentctls and plugins; give stragglers a moment before killing.
    await waitForNoProcesses(this.root, 3000);
    killAll(this.root);
    const left = await waitForNoProcesses(this.root, 5000);
    if (left.length > 0) process.stderr.write(`bench: processes left behind: ${left.map((p) => p.pid).join(', ')}\n`);
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** SIGKILLs every process mentioning `marker`, its group first. */
export function killAll(marker: string): void {
  for (const entry of processesMentioning(marker)) {
    for (const target of [-entry.pid, entry.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // not a group leader, or already gone
      }
    }
  }
}
