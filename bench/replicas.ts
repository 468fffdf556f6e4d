/**
 * Replicas on PostgreSQL (docs/operations.md §10), side by side with one SQLite backend on the same
 * machine: calls per second at 32 in flight from three agentctls linked to one, two or three
 * replicas (every replica calling its own copy of the plugin), as a ratio to the same three
 * agentctls on one SQLite backend; and fan-out with agentctls spread over the three replicas (a change made
 * through one reaches the others' agentctls through the store's NOTIFY). On two cores this
 * measures the overhead of the shared store, not scale.
 */
import { join } from 'node:path';
import { adminApi, type AdminApi } from '../test/support/clients/admin-api';
import type { McpAgent } from '../test/support/clients/mcp-agent';
import { eventually } from '../test/support/eventually';
import { writePluginPackage } from '../test/support/packages/plugin-package';
import { PrivatePostgres } from '../test/support/postgres/private-postgres';
import { ProcessSandbox } from '../test/support/processes/process-sandbox';
import { median, throughput } from './stats';

const ADMIN_TOKEN = 'bench-replicas-admin-token';
const SECRET_KEY = '3c'.repeat(32);
const CALLS_PER_ROUND = 600;
/** Agentctls on every side, so the sides differ only in how many backends serve them. */
const AGENTCTLS = 3;
const IN_FLIGHT = 32;

export interface ReplicaFigures {
  rounds: number;
  /** Calls per second, median of the rounds, by side. */
  callsPerSecond: { sqlite: number; replicas1: number; replicas2: number; replicas3: number };
  fanOut: { agentctls: number; rounds: number; p50: number; max: number };
}

interface Backend {
  api: AdminApi;
  agents: McpAgent[];
}

const source = `
import { serve } from 'toolport/plugin-sdk';
void serve({ tools: { echo: (args) => ({ text: String(args.value) }), ping: () => 'pong' } });
`;

function writePackages(root: string): { echo: string; toggle: string } {
  const tool = (name: string) => ({
    name,
    description: `Bench tool ${name}.`,
    surfaces: ['kanban-task'],
    input_schema: { type: 'object', properties: { value: { type: 'string' } } },
    annotations: { read_only_hint: true },
  });
  const write = (id: string, name: string) =>
    writePluginPackage(join(root, id), { manifest: { api_version: 1, id, version: '1.0.0', agent_tools: [tool(name)] }, source });
  return { echo: write('bench.rep', 'echo'), toggle: write('bench.reptoggle', 'ping') };
}

export async function measureReplicas(rounds = 3, fanOutAgents = 15): Promise<ReplicaFigures> {
  const postgres = await PrivatePostgres.start();
  const sandbox = new ProcessSandbox('toolport-bench-replicas-');
  try {
    const database = await postgres.createDatabase('bench_replicas');
    const packages = writePackages(sandbox.root);
    const flags = ['--session-max-inflight', '32', '--plugin-start-timeout-ms', '20000'];
    const start = async (name: string, store: boolean): Promise<Backend> => {
      const env = store ? { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: SECRET_KEY, PGPASSFILE: postgres.writePgpass(sandbox.root) } : {};
      const args = store ? [...flags, '--store', postgres.url(database)] : flags;
      const backend = await sandbox.startBackend({ dataDir: join(sandbox.root, name), env, args, readyTimeoutMs: 30_000 });
      return { api: adminApi(backend.url, backend.token), agents: [] };
    };
    const sqlite = await start('sqlite', false);
    const replicas = [await start('r1', true), await start('r2', true), await start('r3', true)];
    for (const [backend, path] of [
      [sqlite, packages.echo],
      [replicas[0], packages.echo],
      [sqlite, packages.toggle],
      [replicas[0], packages.toggle],
    ] as const) {
      const answer = await backend.api('POST', '/api/v1/plugins', { path });
      if (answer.status !== 201) throw new Error(`install: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    // Every replica runs its copies before anything is timed.
    await eventually(
      async () => {
        const plugins = (await replicas[2].api<Array<{ replicas: Array<{ status: string }> }>>('GET', '/api/v1/plugins')).body;
        return plugins.every((plugin) => plugin.replicas.length === 3 && plugin.replicas.every((copy) => copy.status === 'active'));
      },
      20_000,
      'every replica to run its copies',
    );
    const addAgent = async (backend: Backend, task: string) => {
      const started = await backend.api<any>('POST', '/api/v1/sessions', { task_id: task, workspace_id: 'bench', surface: 'kanban-task' });
      if (started.status !== 201) throw new Error(`session: ${started.status} ${JSON.stringify(started.body)}`);
      const agent = await sandbox.connect(started.body.mcp.url, started.body.mcp.token, 'bench-agent');
      // Linked: its first call answers from the plugin.
      await eventually(async () => !(await agent.call('kandev_bench_rep_echo', { value: 'up' })).isError, 10_000, 'the agentctl to link', { everyMs: 50 });
      backend.agents.push(agent);
      return agent;
    };
    const agentsOn = async (backends: Backend[], side: string) => {
      const agents: McpAgent[] = [];
      for (let i = 0; i < AGENTCTLS; i += 1) agents.push(await addAgent(backends[i % backends.length], `calls-${side}-${i}`));
      return agents;
    };
    const sides = {
      sqlite: await agentsOn([sqlite], 'sqlite'),
      replicas1: await agentsOn(replicas.slice(0, 1), 'r1'),
      replicas2: await agentsOn(replicas.slice(0, 2), 'r2'),
      replicas3: await agentsOn(replicas, 'r3'),
    };
    const samples: Record<keyof typeof sides, number[]> = { sqlite: [], replicas1: [], replicas2: [], replicas3: [] };
    for (let round = -1; round < rounds; round += 1) {
      for (const side of Object.keys(sides) as Array<keyof typeof sides>) {
        const agents = sides[side];
        const rate = await throughput(IN_FLIGHT, CALLS_PER_ROUND, async (n) => {
          const result = await agents[n % agents.length].call('kandev_bench_rep_echo', { value: String(n) });
          if (result.isError) throw new Error(`call failed on ${side}: ${JSON.stringify(result.content)}`);
        });
        if (round >= 0) samples[side].push(rate);
      }
    }

    // Fan-out: agentctls spread over the three replicas, the change made through the first.
    for (let i = 0; i < fanOutAgents; i += 1) await addAgent(replicas[i % 3], `fan-${i}`);
    const listening = replicas.flatMap((replica) => replica.agents);
    // Enable rounds include each other replica starting its copy before it pushes (it pushes
    // the tools once its own copy can serve them); disable rounds only the copy's stop.
    const waves: number[] = [];
    for (let round = -1; round < rounds; round += 1) {
      const before = listening.map((agent) => agent.listChangedAt.length);
      const verb = round % 2 === 0 ? 'enable' : 'disable';
      const answer = await replicas[0].api('POST', `/api/v1/plugins/bench.reptoggle/${verb}`);
      const returned = performance.now();
      if (answer.status !== 200) throw new Error(`${verb}: ${answer.status}`);
      await eventually(() => listening.every((agent, i) => agent.listChangedAt.length > before[i]), 20_000, 'list_changed everywhere', { everyMs: 5 });
      if (round >= 0) waves.push(Math.max(...listening.map((agent, i) => agent.listChangedAt[before[i]])) - returned);
    }
    return {
      rounds,
      callsPerSecond: {
        sqlite: median(samples.sqlite),
        replicas1: median(samples.replicas1),
        replicas2: median(samples.replicas2),
        replicas3: median(samples.replicas3),
      },
      fanOut: { agentctls: listening.length, rounds, p50: median(waves), max: Math.max(...waves) },
    };
  } finally {
    await sandbox.teardown({ graceMs: 15_000 });
    await postgres.stop();
  }
}
