/**
 * Fan-out: from an enable or disable API call returning to the moment the last of N live
 * agentctls' agents heard list_changed (one official MCP client each, listening stream open).
 */
import { eventually } from '../test/support/eventually';
import { cpuMs, median } from './stats';
import { TOGGLE_PLUGIN, type BenchWorld } from './world';

export interface FanOutFigures {
  agentctls: number;
  rounds: number;
  /** API call returned → last list_changed, median and worst (ms). */
  p50: number;
  max: number;
  /** API call started → last list_changed, median (ms): includes the lifecycle change itself. */
  fromCallP50: number;
  /** CPU ms used per round (median) by the backend, by all agentctls together, and by the bench's MCP clients. */
  cpuPerRound: { backend: number; agentctls: number; clients: number };
}

/** Toggles the toggle plugin `rounds` times and times each list_changed wave over every session. */
export async function measureFanOut(world: BenchWorld, rounds: number): Promise<FanOutFigures> {
  const agents = world.sessions.map((s) => s.agent);
  const afterReturn: number[] = [];
  const afterCall: number[] = [];
  const cpu = { backend: [] as number[], agentctls: [] as number[], clients: [] as number[] };
  const agentctlPids = await Promise.all(world.sessions.map((session) => world.agentctlPid(session.sessionId)));
  const agentctlCpu = (): number => agentctlPids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const ownCpu = (): number => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  // One unmeasured wave first: proves every listening stream is open before timing.
  for (let round = -1; round < rounds; round++) {
    const before = agents.map((a) => a.listChangedAt.length);
    const current = (await world.api<{ status: string }>('GET', `/api/v1/plugins/${TOGGLE_PLUGIN}`)).body.status;
    const verb = current === 'active' ? 'disable' : 'enable';
    const cpuBefore = { backend: cpuMs(world.backend.pid), agentctls: agentctlCpu(), clients: ownCpu() };
    const called = performance.now();
    const answer = await world.api('POST', `/api/v1/plugins/${TOGGLE_PLUGIN}/${verb}`);
    const returned = performance.now();
    if (answer.status !== 200) throw new Error(`${verb}: ${answer.status} ${JSON.stringify(answer.body)}`);
    await eventually(() => agents.every((a, i) => a.listChangedAt.length > before[i]!), 20_000, `list_changed at ${agents.length} agents`, { everyMs: 5 });
    const last = Math.max(...agents.map((a, i) => a.listChangedAt[before[i]!]!));
    if (round >= 0) {
      cpu.backend.push(cpuMs(world.backend.pid) - cpuBefore.backend);
      cpu.agentctls.push(agentctlCpu() - cpuBefore.agentctls);
      cpu.clients.push(ownCpu() - cpuBefore.clients);
      afterReturn.push(last - returned);
      afterCall.push(last - called);
    }
  }
  return {
    agentctls: agents.length,
    rounds,
    p50: median(afterReturn),
    max: Math.max(...afterReturn),
    fromCallP50: median(afterCall),
    cpuPerRound: { backend: median(cpu.backend), agentctls: median(cpu.agentctls), clients: median(cpu.clients) },
  };
}
