/** The full path's p50 and its backend + agentctl CPU per call, block by block (the `warmup` part). */
import { cpuMs, median } from './stats';
import { BenchWorld, PLAIN_ECHO_TOOL } from './world';

export interface BlockFigure {
  p50: number;
  cpuPerCall: number;
}

export async function fullPathBlocks(world: BenchWorld, blocks: number, perBlock = 40): Promise<BlockFigure[]> {
  const agent = world.sessions[0]!.agent;
  const pids = [world.backend.pid, await world.agentctlPid(world.sessions[0]!.sessionId)];
  const cpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const figures: BlockFigure[] = [];
  for (let block = 0; block < blocks; block++) {
    const times: number[] = [];
    const before = cpu();
    for (let i = 0; i < perBlock; i++) {
      const started = performance.now();
      const result = await agent.call(PLAIN_ECHO_TOOL, { value: `s${i}` });
      if (result.isError) throw new Error('call failed');
      times.push(performance.now() - started);
    }
    figures.push({ p50: median(times), cpuPerCall: (cpu() - before) / perBlock });
  }
  return figures;
}
