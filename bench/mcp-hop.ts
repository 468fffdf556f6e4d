/**
 * The MCP hop alone: agentctl's built-in `get_task_context` and `tools/list` next to the same
 * requests on the SDK floor server, interleaved in blocks, with each server's CPU time per
 * request (from /proc, so it holds on a noisy machine). The agentctl here runs standalone.
 */
import { connectAgent, type McpAgent } from '../test/support/clients/mcp-agent';
import type { ProcessSandbox } from '../test/support/processes/process-sandbox';
import type { FloorServers } from './hops';
import { rotatedBlocks } from './rotated-blocks';
import { cpuMs, median } from './stats';
import { launchAgentctl, STANDALONE_TOKENS } from './standalone-agentctl';

export interface McpHopFigures {
  /** ms per request, p50 */
  floorCallP50: number;
  agentctlCallP50: number;
  floorListP50: number;
  agentctlListP50: number;
  /** Server CPU ms per request, over every measured request. */
  floorCpuPerRequest: number;
  agentctlCpuPerRequest: number;
}

const PLAN = { blocks: 10, block: 50 };

export async function measureMcpHop(sandbox: ProcessSandbox, floors: FloorServers): Promise<McpHopFigures> {
  const agentctl = await launchAgentctl(sandbox, 'hop', { generation: '000000000001-0000be7c', revision: 1, tools: [] });
  try {
    const agents: Record<'floor' | 'agentctl', McpAgent> = {
      floor: await connectAgent(floors.mcpUrl, 'unused', 'bench-agent'),
      agentctl: await connectAgent(agentctl.mcpUrl, STANDALONE_TOKENS.mcp, 'bench-agent'),
    };
    const pids = { floor: floors.pid, agentctl: agentctl.pid };
    const calls = {
      floor: () => agents.floor.call('echo', { value: 'v' }),
      agentctl: () => agents.agentctl.call('get_task_context', {}),
    };
    const times = { floorCall: [] as number[], agentctlCall: [] as number[], floorList: [] as number[], agentctlList: [] as number[] };
    const cpu = { floor: 0, agentctl: 0 };
    const requests = { floor: 0, agentctl: 0 };
    for (let warm = 0; warm < 100; warm++) for (const side of ['floor', 'agentctl'] as const) await calls[side]();
    await rotatedBlocks(['floor', 'agentctl'] as const, PLAN.blocks, async (side) => {
      const before = cpuMs(pids[side]);
      for (let i = 0; i < PLAN.block; i++) {
        let started = performance.now();
        await calls[side]();
        times[`${side}Call`].push(performance.now() - started);
        started = performance.now();
        await agents[side].client.listTools();
        times[`${side}List`].push(performance.now() - started);
      }
      cpu[side] += cpuMs(pids[side]) - before;
      requests[side] += 2 * PLAN.block;
    });
    await agents.floor.close();
    await agents.agentctl.close();
    return {
      floorCallP50: median(times.floorCall),
      agentctlCallP50: median(times.agentctlCall),
      floorListP50: median(times.floorList),
      agentctlListP50: median(times.agentctlList),
      floorCpuPerRequest: cpu.floor / requests.floor,
      agentctlCpuPerRequest: cpu.agentctl / requests.agentctl,
    };
  } finally {
    await agentctl.stop();
  }
}
