/**
 * The MCP hop alone, both eras: agentctl's built-in `get_task_context` and `tools/list` next to
 * the same requests on the SDK floors (v1, and v2 in each era), interleaved in blocks, with
 * each server's CPU time per request (from /proc, so it holds on a noisy machine). 2025 sides
 * use the SDK v1 client (as agents mostly do), 2026-07-28 sides the SDK v2 client pinned to it;
 * its `tools/list` skips the client's cache so every list is a round trip. The agentctl here
 * runs standalone.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { connectAgent } from '../test/support/clients/mcp-agent';
import type { ProcessSandbox } from '../test/support/processes/process-sandbox';
import type { FloorServers } from './hops';
import { rotatedBlocks } from './rotated-blocks';
import { cpuMs, median } from './stats';
import { launchAgentctl, STANDALONE_TOKENS } from './standalone-agentctl';

export const MCP_HOP_SIDES = ['floor v1, 2025', 'floor v2, 2025', 'floor v2, 2026-07-28', 'agentctl, 2025', 'agentctl, 2026-07-28'] as const;
export type McpHopSide = (typeof MCP_HOP_SIDES)[number];

export interface McpHopSideFigures {
  /** ms per request, p50 */
  callP50: number;
  listP50: number;
  /** Server CPU ms per request, over every measured request. */
  cpuPerRequest: number;
}

export type McpHopFigures = Record<McpHopSide, McpHopSideFigures>;

interface HopClient {
  call(): Promise<unknown>;
  list(): Promise<unknown>;
  close(): Promise<void>;
}

const PLAN = { blocks: 10, block: 50 };

async function modernClient(url: string, token: string, tool: string, args: Record<string, unknown>): Promise<HopClient> {
  const client = new ClientV2({ name: 'bench-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new HttpTransportV2(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return {
    call: () => client.callTool({ name: tool, arguments: args }),
    list: () => client.listTools(undefined, { cacheMode: 'refresh' }),
    close: () => client.close(),
  };
}

async function legacyClient(url: string, token: string, tool: string, args: Record<string, unknown>): Promise<HopClient> {
  const agent = await connectAgent(url, token, 'bench-agent');
  return { call: () => agent.call(tool, args), list: () => agent.client.listTools(), close: () => agent.close() };
}

export async function measureMcpHop(sandbox: ProcessSandbox, floors: FloorServers): Promise<McpHopFigures> {
  const agentctl = await launchAgentctl(sandbox, 'hop', { generation: '000000000001-0000be7c', revision: 1, tools: [] });
  const clients = new Map<McpHopSide, HopClient>();
  try {
    const echo = { value: 'v' };
    clients.set('floor v1, 2025', await legacyClient(floors.mcpUrl, 'unused', 'echo', echo));
    clients.set('floor v2, 2025', await legacyClient(floors.mcpV2Url, 'unused', 'echo', echo));
    clients.set('floor v2, 2026-07-28', await modernClient(floors.mcpV2Url, 'unused', 'echo', echo));
    clients.set('agentctl, 2025', await legacyClient(agentctl.mcpUrl, STANDALONE_TOKENS.mcp, 'get_task_context', {}));
    clients.set('agentctl, 2026-07-28', await modernClient(agentctl.mcpUrl, STANDALONE_TOKENS.mcp, 'get_task_context', {}));
    const pid = (side: McpHopSide) => (side.startsWith('floor') ? floors.pid : agentctl.pid);
    const samples = new Map(MCP_HOP_SIDES.map((side) => [side, { call: [] as number[], list: [] as number[], cpu: 0, requests: 0 }]));
    for (let warm = 0; warm < 100; warm++) for (const side of MCP_HOP_SIDES) await clients.get(side)!.call();
    await rotatedBlocks(MCP_HOP_SIDES, PLAN.blocks, async (side) => {
      const client = clients.get(side)!;
      const sample = samples.get(side)!;
      const before = cpuMs(pid(side));
      // Calls, then lists: a list between two calls makes a client re-derive what it checks a
      // call's result with (the v2 client compiles the output schema again), which is the
      // client's cost, not the hop's.
      for (let i = 0; i < PLAN.block; i++) {
        const started = performance.now();
        await client.call();
        sample.call.push(performance.now() - started);
      }
      for (let i = 0; i < PLAN.block; i++) {
        const started = performance.now();
        await client.list();
        sample.list.push(performance.now() - started);
      }
      sample.cpu += cpuMs(pid(side)) - before;
      sample.requests += 2 * PLAN.block;
    });
    const figures = {} as McpHopFigures;
    for (const [side, sample] of samples)
      figures[side] = { callP50: median(sample.call), listP50: median(sample.list), cpuPerRequest: sample.cpu / sample.requests };
    return figures;
  } finally {
    for (const client of clients.values()) await client.close().catch(() => undefined);
    await agentctl.stop();
  }
}
