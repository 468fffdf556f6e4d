/**
 * The Host API's cost, side by side: a Host GetState round trip as a plugin sees it (timed
 * inside the SDK plugin, over the backend's unix socket), and a full tool call that does one
 * GetState next to the same call without it. Blocks rotate through the three kinds.
 */
import type { McpAgent } from '../test/support/clients/mcp-agent';
import { rotatedBlocks } from './rotated-blocks';
import { median, p95 } from './stats';
import { ECHO_TOOL, HOST_RTT_TOOL, STATE_ECHO_TOOL } from './world';

export type HostKind = 'getState' | 'plainCall' | 'stateCall';
export interface HostFigures {
  p50: number;
  p95: number;
  samples: number;
}

const PLAN = { blocks: 12, block: 40, warmup: 60 };

async function call(agent: McpAgent, name: string, args: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const result = await agent.call(name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown> | undefined;
}

export async function measureHostHop(agent: McpAgent): Promise<Record<HostKind, HostFigures>> {
  const samples: Record<HostKind, number[]> = { getState: [], plainCall: [], stateCall: [] };
  const timedCall = async (kind: 'plainCall' | 'stateCall', n: number): Promise<void> => {
    const started = performance.now();
    await call(agent, kind === 'plainCall' ? ECHO_TOOL : STATE_ECHO_TOOL, { value: `v${n}` });
    samples[kind].push(performance.now() - started);
  };
  for (let i = 0; i < PLAN.warmup; i++) {
    await call(agent, ECHO_TOOL, { value: 'w' });
    await call(agent, STATE_ECHO_TOOL, { value: 'w' });
  }
  await call(agent, HOST_RTT_TOOL, { n: PLAN.warmup });
  for (const kind of Object.keys(samples) as HostKind[]) samples[kind].length = 0;
  await rotatedBlocks(['getState', 'plainCall', 'stateCall'] as const, PLAN.blocks, async (kind, block) => {
    if (kind === 'getState') {
      const answer = await call(agent, HOST_RTT_TOOL, { n: PLAN.block });
      samples.getState.push(...((answer?.samples as number[] | undefined) ?? []));
      return;
    }
    for (let i = 0; i < PLAN.block; i++) await timedCall(kind, block * PLAN.block + i);
  });
  const figures = {} as Record<HostKind, HostFigures>;
  for (const kind of Object.keys(samples) as HostKind[]) figures[kind] = { p50: median(samples[kind]), p95: p95(samples[kind]), samples: samples[kind].length };
  return figures;
}
