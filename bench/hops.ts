/**
 * Floors and the full path, measured side by side: each kind runs at 32 in flight (which also
 * warms every process's code), then blocks of sequential calls rotate through the kinds so
 * each sees the same machine load.
 */
import { join } from 'node:path';
import { credentials, Metadata } from '@grpc/grpc-js';
import WebSocket from 'ws';
import { PluginClient } from '../src/adapters/grpc/generated/toolport/plugin/v1/plugin';
import { connectAgent, type McpAgent } from '../test/support/clients/mcp-agent';
import { ProcessRun } from '../test/support/processes/process-run';
import type { ProcessSandbox } from '../test/support/processes/process-sandbox';
import { rotatedBlocks } from './rotated-blocks';
import { cpuMs, median, p95, throughput } from './stats';
import { PLAIN_ECHO_TOOL } from './world';

/** `builtin` is get_task_context through agentctl: its MCP hop alone, next to the `mcp` floor. */
export type Hop = 'grpc' | 'mcp' | 'ws' | 'builtin' | 'full';
export interface HopFigures {
  p50: number;
  p95: number;
  calls: number;
  /** Calls per second with 32 in flight. */
  throughput32: number;
  /**
   * CPU per call (ms) over those calls, of every process the kind runs through (the bench's own
   * client included): on a 2-core machine 32 calls in flight are CPU-bound, so the kinds'
   * rates stand in about the inverse ratio of these sums.
   */
  cpuPerCall32: Record<string, number>;
}

/** The processes of the full path besides the bench's own. */
export interface FullPathPids {
  backend: number;
  agentctl: number;
  /** The plaintext plugin the grpc floor and the full path call. */
  plugin: number;
}

/** Which processes each kind runs through, besides the bench's client. */
const PROCESSES: Record<Hop, ReadonlyArray<keyof FullPathPids | 'floors'>> = {
  grpc: ['plugin'],
  mcp: ['floors'],
  ws: ['floors'],
  builtin: ['agentctl'],
  full: ['agentctl', 'backend', 'plugin'],
};

/** Runs `run` and answers its CPU per call in this process and in each of `pids` (ms). */
async function cpuOf(calls: number, pids: Record<string, number>, run: () => Promise<number>): Promise<{ rate: number; cpu: Record<string, number> }> {
  const own = process.cpuUsage();
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const rate = await run();
  const used = process.cpuUsage(own);
  const cpu: Record<string, number> = { bench: (used.user + used.system) / 1000 / calls };
  for (const [name, pid] of Object.entries(pids)) cpu[name] = (cpuMs(pid) - before[name]!) / calls;
  return { rate, cpu };
}

const PLAN = { blocks: 12, block: 40, warmup: 60, concurrentTotal: 1600 };

export interface FloorServers {
  run: ProcessRun;
  /** The SDK v1 floor (2025 era). */
  mcpUrl: string;
  /** The SDK v2 floor, both eras on one endpoint. */
  mcpV2Url: string;
  wsUrl: string;
  pid: number;
}

/** Starts bench/floor-servers (bundled next to the bench as floor-servers.js) and reads its ready line. */
export async function startFloorServers(sandbox: ProcessSandbox): Promise<FloorServers> {
  const run = sandbox.track(new ProcessRun(process.execPath, [join(__dirname, 'floor-servers.js')], { env: process.env, stderr: 'inherit' }));
  const [line] = await run.waitForStdout(/^.*\n/, 30_000, "the floor servers' ready line");
  const ready = JSON.parse(line) as { mcp_url: string; mcp_v2_url: string; ws_url: string; pid: number };
  return { run, mcpUrl: ready.mcp_url, mcpV2Url: ready.mcp_v2_url, wsUrl: ready.ws_url, pid: ready.pid };
}

type Call = (n: number) => Promise<unknown>;

function grpcCall(port: number): { call: Call; close(): void } {
  const client = new PluginClient(`127.0.0.1:${port}`, credentials.createInsecure(), { 'grpc.enable_retries': 0 });
  const call: Call = (n) =>
    new Promise<void>((resolve, reject) => {
      const metadata = new Metadata();
      metadata.set('toolport-invocation-id', `bench-${n}`);
      const request = {
        invocationId: `bench-${n}`,
        name: 'echo',
        argumentsJson: JSON.stringify({ value: `v${n}` }),
        context: { taskId: 't', sessionId: 's', workspaceId: 'w', surface: 'kanban-task', profile: '' },
      };
      client.invokeAgentTool(request, metadata, { deadline: Date.now() + 30_000 }, (error) => (error ? reject(error) : resolve()));
    });
  return { call, close: () => client.close() };
}

async function wsCall(url: string): Promise<{ call: Call; close(): void }> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const pending = new Map<string, () => void>();
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { id: string };
    pending.get(frame.id)?.();
    pending.delete(frame.id);
  });
  const call: Call = (n) =>
    new Promise<void>((resolve) => {
      const id = String(n);
      pending.set(id, resolve);
      socket.send(
        JSON.stringify({
          id,
          type: 'request',
          action: 'mcp.invoke_plugin_tool',
          payload: { plugin_id: 'bench.echo', local_name: 'echo', arguments: { value: `v${n}` } },
        }),
      );
    });
  return { call, close: () => socket.close() };
}

function mcpCall(agent: McpAgent, name: string): Call {
  return async (n) => {
    const result = await agent.call(name, { value: `v${n}` });
    if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
  };
}

/** `pluginPort`: a plaintext SDK plugin's (one over mutual TLS takes calls from its host only). */
export async function measureHops(options: {
  pluginPort: number;
  floors: FloorServers;
  fullAgent: McpAgent;
  pids: FullPathPids;
}): Promise<Record<Hop, HopFigures>> {
  const grpc = grpcCall(options.pluginPort);
  const ws = await wsCall(options.floors.wsUrl);
  const floorAgent = await connectAgent(options.floors.mcpUrl, 'unused', 'bench-agent');
  const calls: Record<Hop, Call> = {
    grpc: grpc.call,
    ws: ws.call,
    mcp: mcpCall(floorAgent, 'echo'),
    builtin: mcpCall(options.fullAgent, 'get_task_context'),
    // The plaintext plugin, the one the grpc floor calls: the full path over the same last hop.
    full: mcpCall(options.fullAgent, PLAIN_ECHO_TOOL),
  };
  const hops = Object.keys(calls) as Hop[];
  const samples: Record<Hop, number[]> = { grpc: [], ws: [], mcp: [], builtin: [], full: [] };
  for (const hop of hops) for (let i = 0; i < PLAN.warmup; i++) await calls[hop](i);
  // 32 in flight first: its 1,600 calls a kind also warm the code every kind runs, so the timed
  // calls below meet optimised code, as the parts after this one do (bench/PROFILE.md §12: on a
  // fresh backend and agentctl, CPU per call halves over the first ~1,000 calls).
  const rates = {} as Record<Hop, { rate: number; cpu: Record<string, number> }>;
  const pidOf = (name: keyof FullPathPids | 'floors'): number => (name === 'floors' ? options.floors.pid : options.pids[name]);
  for (const hop of hops) {
    const pids = Object.fromEntries(PROCESSES[hop].map((name) => [name, pidOf(name)]));
    rates[hop] = await cpuOf(PLAN.concurrentTotal, pids, () => throughput(32, PLAN.concurrentTotal, calls[hop]));
  }
  await rotatedBlocks(hops, PLAN.blocks, async (hop, block) => {
    for (let i = 0; i < PLAN.block; i++) {
      const started = performance.now();
      await calls[hop](block * PLAN.block + i);
      samples[hop].push(performance.now() - started);
    }
  });
  const figures = {} as Record<Hop, HopFigures>;
  for (const hop of hops)
    figures[hop] = {
      p50: median(samples[hop]),
      p95: p95(samples[hop]),
      calls: samples[hop].length,
      throughput32: rates[hop].rate,
      cpuPerCall32: rates[hop].cpu,
    };
  grpc.close();
  ws.close();
  await floorAgent.close();
  return figures;
}
