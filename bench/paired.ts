/**
 * This build beside another one (`BENCH_BASELINE_REF=<commit> npm run bench -- --only=paired`):
 * two backends side by side, one session each, the echo tool called one by one in a random
 * order each round (as the tracing part does), so a fix's before/after shares the machine's
 * load. Wall time drifts with the load of a shared machine; CPU per call of each side's backend
 * and agentctl (from /proc) is the figure to compare.
 */
import { join } from 'node:path';
import { alternating, cpuMs, pairedDifferenceP50, spread, type Spread } from './stats';
import { BenchWorld, PLAIN_ECHO_TOOL } from './world';

export interface PairedSide extends Spread {
  /** CPU per call (ms) of the side's backend and of its session's agentctl. */
  cpuPerCall: { backend: number; agentctl: number };
}

export interface PairedFigures {
  commit: string;
  rounds: number;
  current: PairedSide;
  baseline: PairedSide;
  /** Median of (this build's call − the baseline's call). */
  pairedDifferenceP50: number;
}

export async function measurePaired(current: BenchWorld, rounds = 1500, warmup = 600): Promise<PairedFigures | undefined> {
  const app = process.env.TOOLPORT_BENCH_BASELINE_APP;
  if (!app || process.env.BENCH_BASELINE_REF === undefined) return undefined;
  const baseline = new BenchWorld();
  try {
    await baseline.setUp({}, join(app, 'bin', 'toolport'));
    await baseline.addSessions(1, 1);
    const worlds = [current, baseline];
    const sides = worlds.map((world) => async (n: number) => {
      const result = await world.sessions[0]!.agent.call(PLAIN_ECHO_TOOL, { value: `v${n}` });
      if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
    });
    const pids = await Promise.all(worlds.map(async (world) => [world.backend.pid, await world.agentctlPid(world.sessions[0]!.sessionId)] as const));
    await alternating(warmup, sides);
    const before = pids.map((pair) => pair.map(cpuMs));
    const [now, then] = (await alternating(rounds, sides)) as [number[], number[]];
    const cpu = pids.map((pair, i) => ({ backend: (cpuMs(pair[0]) - before[i]![0]!) / rounds, agentctl: (cpuMs(pair[1]) - before[i]![1]!) / rounds }));
    return {
      commit: process.env.TOOLPORT_BENCH_BASELINE_COMMIT ?? '',
      rounds,
      current: { ...spread(now), cpuPerCall: cpu[0]! },
      baseline: { ...spread(then), cpuPerCall: cpu[1]! },
      pairedDifferenceP50: pairedDifferenceP50(now, then),
    };
  } finally {
    await baseline.teardown();
  }
}
