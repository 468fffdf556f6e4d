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
/** The echo tool doing one Host GetState before it answers. */
export const STATE_ECHO_TOOL = 'kandev_bench_echo_state_echo';
/** Times `n` Host GetState round trips inside the plugin and answers the samples (ms). */
export const HOST_RTT_TOOL = 'kandev_bench_echo_host_rtt';
export const PLAIN_ECHO_TOOL = 'kandev_bench_plain_echo';

/** `plaintext`: the plugin ignores the host's PLUGIN_CLIENT_CERT, so it serves without TLS. */
const pluginSource = (plaintext: boolean) => `
import { serve } from '@toolport/plugin-sdk';
${plaintext ? 'delete process.env.PLUGIN_CLIENT_CERT;' : ''}
void serve({ tools: {
  echo: (args) => ({ text: String(args.value) }),
  state_echo: async (args, context) => {
    await context.host.state.get('bench/value');
    return { text: String(args.value) };
  },
  host_rtt: async (args, context) => {
    const samples = [];
    for (let i = 0; i < Number(args.n); i++) {
      const started = performance.now();
      await context.host.state.get('bench/value');
      samples.push(performance.now() - started);
    }
    return { text: 'timed', structuredContent: { samples } };
  },
  ping: () => 'pong',
} }).then((served) => served.log.info('bench plugin', { port: served.port, plugin_pid: process.pid }));
`;

function tool(name: string) {
  const properties = name === 'host_rtt' ? { n: { type: 'integer', minimum: 1 } } : { value: { type: 'string' } };
  return {
    name,
    description: `Bench tool ${name}.`,
    surfaces: ['kanban-task'],
    input_schema: { type: 'object', properties, required: name === 'ping' ? [] : Object.keys(properties) },
    annotations: { read_only_hint: true },
  };
}

export interface BenchSession {
  sessionId: string;
  agent: McpAgent;
  /** Its agentctl's MCP endpoint and bearer token, for a client of another kind (the peers part). */
  mcp: { url: string; token: string };
}

export class BenchWorld extends BackendWorld {
  readonly sessions: BenchSession[] = [];

  constructor() {
    // The hops part runs 32 calls in flight from one session: past the default share of 8.
    super(['--session-max-inflight', '32'], { prefix: 'toolport-bench-', workspace: 'bench' });
  }

  /**
   * Writes and installs the three plugins on a fresh backend, started with `env` added to the
   * bench's, from another build's `bin/toolport` when `bin` is given.
   */
  async setUp(env?: NodeJS.ProcessEnv, bin?: string): Promise<void> {
    for (const [id, tools] of [
      [ECHO_PLUGIN, ['echo', 'state_echo', 'host_rtt']],
      [TOGGLE_PLUGIN, ['ping']],
      [PLAIN_ECHO_PLUGIN, ['echo']],
    ] as const) {
      const manifest = { api_version: 1, id, version: '1.0.0', capabilities: { state: true }, agent_tools: tools.map(tool) };
      writePluginPackage(join(this.root, id), { manifest, source: pluginSource(id === PLAIN_ECHO_PLUGIN) });
    }
    // Plugins run unsandboxed here, as in the builds it is compared with: the hops part calls the
    // echo plugin's TCP port directly, which a sandboxed plugin does not offer. (The environment
    // variable, not the flag, so an older build's `serve` starts too.)
    await this.start({ readyTimeoutMs: 30_000, env: { TOOLPORT_PLUGIN_SANDBOX: 'off', ...env }, bin });
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
        const agent = await this.agent(session, 'bench-agent');
        this.sessions.push({ sessionId: session.session_id, agent, mcp: { url: session.mcp!.url, token: session.mcp!.token } });
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
