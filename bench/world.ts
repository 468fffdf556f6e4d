/**
 * The bench's running system: one `toolport serve` (port 0) on a temporary data dir with two
 * SDK plugins installed, sessions started through the API, and agents on the official MCP
 * client. Teardown stops the backend gracefully (it stops its agentctls and plugins, which
 * then write their CPU profiles under bench/profile-hook.js) and kills and reaps anything left.
 */
import { join } from 'node:path';
import type { McpAgent } from '../test/support/clients/mcp-agent';
import { eventually } from '../test/support/eventually';
import { writePluginPackage } from '../test/support/packages/plugin-package';
import { BackendWorld } from '../test/support/processes/backend-world';
import type { ProcessEntry } from '../test/support/processes/process-table';

export const ECHO_PLUGIN = 'bench.echo';
export const TOGGLE_PLUGIN = 'bench.toggle';
/** The echo plugin again, ignoring PLUGIN_CLIENT_CERT: plaintext, so the bench can call it directly too. */
export const PLAIN_ECHO_PLUGIN = 'bench.plain';
export const ECHO_TOOL = 'kandev_bench_echo_echo';
export const PLAIN_ECHO_TOOL = 'kandev_bench_plain_echo';

/** `plaintext`: the plugin ignores the host's PLUGIN_CLIENT_CERT, so it serves without TLS. */
const pluginSource = (plaintext: boolean) => `
import { serve } from 'toolport/plugin-sdk';
${plaintext ? 'delete process.env.PLUGIN_CLIENT_CERT;' : ''}
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

export interface BenchSession {
  sessionId: string;
  agent: McpAgent;
}

export class BenchWorld extends BackendWorld {
  readonly sessions: BenchSession[] = [];

  constructor() {
    super([], { prefix: 'toolport-bench-', workspace: 'bench' });
  }

  /** Writes and installs the three plugins on a fresh backend. */
  async setUp(): Promise<void> {
    for (const [id, tools] of [[ECHO_PLUGIN, ['echo']], [TOGGLE_PLUGIN, ['ping']], [PLAIN_ECHO_PLUGIN, ['echo']]] as const) {
      const source = pluginSource(id === PLAIN_ECHO_PLUGIN);
      writePluginPackage(join(this.root, id), { manifest: { api_version: 1, id, version: '1.0.0', agent_tools: tools.map(tool) }, source });
    }
    // The 32-in-flight figures come from one session: its default share (8) would refuse them.
    await this.start({ readyTimeoutMs: 30_000, args: ['--session-max-inflight', '32'] });
    for (const id of [ECHO_PLUGIN, TOGGLE_PLUGIN, PLAIN_ECHO_PLUGIN]) await this.install(join(this.root, id));
  }

  /** An echo plugin's gRPC port and pid, from the line it logs once serving. */
  echoPlugin(id = ECHO_PLUGIN): Promise<{ port: number; pid: number }> {
    return eventually(
      () => {
        for (const line of this.backend.stderr().split('\n')) {
          if (!line.includes('"bench plugin"') || !line.includes(`"plugin_id":"${id}"`)) continue;
          const fields = (JSON.parse(line) as { plugin_fields?: { port: number; plugin_pid: number } }).plugin_fields;
          if (fields) return { port: fields.port, pid: fields.plugin_pid };
        }
        return undefined;
      },
      10_000,
      'the echo plugin to report its port',
      { everyMs: 5 },
    );
  }

  /** Starts `count` more sessions through the API (a few at a time) with one agent each. */
  async addSessions(count: number, parallel = 4): Promise<void> {
    let left = count;
    const worker = async (): Promise<void> => {
      while (left > 0) {
        left--;
        const session = await this.session('kanban-task', `bench-task-${this.sessions.length}-${Math.random().toString(16).slice(2, 8)}`);
        this.sessions.push({ sessionId: session.session_id, agent: await this.agent(session, 'bench-agent') });
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  }

  /** A graceful stop first, so every process can write its profile; what outlives it is reported. */
  override async teardown(): Promise<ProcessEntry[]> {
    const left = await super.teardown({ graceMs: 15_000 });
    if (left.length > 0) process.stderr.write(`bench: processes left behind: ${left.map((p) => p.pid).join(', ')}\n`);
    return left;
  }
}
