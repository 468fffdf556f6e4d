/**
 * Scopes: 1,000 linked sessions (agentctl's own link and snapshot code in this process, as the
 * linked-sessions part), 100 of them in the view a scope change affects. Times the scope PUT's
 * answer to the moment the last affected session stored the change, and checks that the other
 * 900 were sent nothing. Then the full path (an MCP tool call through a launched agentctl) with
 * no scopes or profiles, beside the same with 50 profiles and 20 workspaces' scopes stored.
 */
import { eventually } from '../test/support/eventually';
import type { StartedSession } from '../test/support/processes/backend-world';
import { getOnceMore, linkedBatch, linkStarted, type LinkedSession } from './linked-sessions';
import { now } from './link-client';
import { cpuMs, median } from './stats';
import { ECHO_PLUGIN, ECHO_TOOL, TOGGLE_PLUGIN, type BenchWorld } from './world';

export interface ScopesFigures {
  sessions: number;
  affected: number;
  rounds: number;
  /** Scope PUT answered → the last affected session stored the change, median and worst (ms). */
  p50: number;
  max: number;
  /** Scope PUT called → the same, median (ms). */
  fromCallP50: number;
  backendCpuPerRound: number;
  /** Pushes the unaffected sessions got during the scope rounds (must be 0). */
  unaffectedPushes: number;
  /** Full-path tool call p50 (ms): no scopes or profiles stored, and 50 profiles + 20 workspaces' scopes. */
  fullPath?: { unscoped: number; scoped: number; calls: number };
}

const HOT = 'ws-hot';
const PROFILES = 50;
const WORKSPACES = 20;

async function start(world: BenchWorld, index: number, workspace: string, profile: string): Promise<StartedSession> {
  const body = { task_id: `scoped-${index}`, workspace_id: workspace, surface: 'kanban-task', profile, launch: false };
  const answer = await world.api<StartedSession>('POST', '/api/v1/sessions', body);
  if (answer.status !== 201) throw new Error(`session start: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function put(world: BenchWorld, path: string, body: unknown): Promise<void> {
  const answer = await world.api('PUT', path, body);
  if (answer.status !== 200) throw new Error(`PUT ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
}

/** Every profile includes every tool, so only the scope decides; sessions spread over them. */
async function defineProfiles(world: BenchWorld): Promise<void> {
  for (let i = 0; i < PROFILES; i++) await put(world, `/api/v1/profiles/p-${i}`, { include: ['*'], exclude: [`nothing-${i}`] });
}

export async function measureScopes(world: BenchWorld, count = 1000, affected = 100, rounds = 6, withFullPath = true): Promise<ScopesFigures> {
  const fullPath = withFullPath ? await measureFullPath(world) : undefined;
  if ((await getOnceMore<{ status: string }>(world, `/api/v1/plugins/${TOGGLE_PLUGIN}`)).status !== 'active') {
    await world.api('POST', `/api/v1/plugins/${TOGGLE_PLUGIN}/enable`);
  }
  await defineProfiles(world);
  const sessions: LinkedSession[] = [];
  for (let next = 0; next < count;) {
    const batch = Array.from({ length: Math.min(16, count - next) }, () => {
      const i = next++;
      // The first `affected` share the hot view; the others spread over 19 workspaces and 50 profiles.
      const view = i < affected ? [HOT, 'default'] : [`ws-${i % (WORKSPACES - 1)}`, `p-${i % PROFILES}`];
      return start(world, i, view[0]!, view[1]!).then(linkStarted);
    });
    sessions.push(...(await linkedBatch(batch)));
  }
  const hot = sessions.slice(0, affected);
  const cold = sessions.slice(affected);
  try {
    await eventually(() => sessions.every((s) => s.appliedAt.length > 0), 60_000 + count * 20, `${count} links to pull their first snapshot`, { everyMs: 20 });
    const coldBefore = cold.reduce((sum, s) => sum + s.pushes, 0);
    const fromCall: number[] = [];
    const fromReturn: number[] = [];
    const cpu: number[] = [];
    for (let round = -1; round < rounds; round++) {
      const before = hot.map((s) => s.appliedAt.length);
      // Turns the toggle plugin's tool off in the hot workspace, then on again.
      const scope = { workspaces: '*', disabled_tools: round % 2 === 0 ? {} : { [HOT]: ['ping'] } };
      const cpuBefore = cpuMs(world.backend.pid);
      const called = now();
      await put(world, `/api/v1/plugins/${TOGGLE_PLUGIN}/scope`, scope);
      const returned = now();
      await eventually(() => hot.every((s, i) => s.appliedAt.length > before[i]!), 30_000, `the scope change at ${affected} sessions`, { everyMs: 5 });
      const last = Math.max(...hot.map((s, i) => s.appliedAt[before[i]!]!));
      if (round < 0) continue;
      fromCall.push(last - called);
      fromReturn.push(last - returned);
      cpu.push(cpuMs(world.backend.pid) - cpuBefore);
    }
    // A change every view shows: once each cold session has it, anything the scope rounds sent it came before.
    const coldSeen = cold.map((s) => s.appliedAt.length);
    const disabled = await world.api('POST', `/api/v1/plugins/${TOGGLE_PLUGIN}/disable`);
    if (disabled.status !== 200) throw new Error(`disable: ${disabled.status}`);
    await eventually(() => cold.every((s, i) => s.appliedAt.length > coldSeen[i]!), 30_000, 'the disable at every unaffected session', { everyMs: 5 });
    const unaffectedPushes = cold.reduce((sum, s) => sum + s.pushes, 0) - coldBefore - cold.length;
    if (unaffectedPushes !== 0) throw new Error(`the ${cold.length} unaffected sessions got ${unaffectedPushes} pushes from the scope changes`);
    await world.api('POST', `/api/v1/plugins/${TOGGLE_PLUGIN}/enable`);
    const figures: ScopesFigures = {
      sessions: count,
      affected,
      rounds,
      p50: median(fromReturn),
      max: Math.max(...fromReturn),
      fromCallP50: median(fromCall),
      backendCpuPerRound: median(cpu),
      unaffectedPushes,
    };
    if (fullPath) figures.fullPath = fullPath;
    return figures;
  } finally {
    await Promise.all(sessions.map((s) => s.link.close()));
  }
}

/**
 * The bench's first session calls the echo tool through its agentctl: blocks of calls with no
 * policy stored and with 50 profiles plus a scope on 20 workspaces (its own among them),
 * alternated so both share the machine's drift.
 */
async function measureFullPath(world: BenchWorld, blocks = 4, callsPerBlock = 200): Promise<ScopesFigures['fullPath']> {
  const agent = world.sessions[0]!.agent;
  const samples = { unscoped: [] as number[], scoped: [] as number[] };
  const workspaces = ['bench', ...Array.from({ length: WORKSPACES - 1 }, (_, i) => `ws-${i}`)];
  const scoped = async (on: boolean): Promise<void> => {
    for (const plugin of [ECHO_PLUGIN, TOGGLE_PLUGIN])
      await put(world, `/api/v1/plugins/${plugin}/scope`, { workspaces: on ? workspaces : '*', disabled_tools: {} });
    if (on) await defineProfiles(world);
    else for (let i = 0; i < PROFILES; i++) await world.api('DELETE', `/api/v1/profiles/p-${i}`);
  };
  for (let block = 0; block < blocks * 2; block++) {
    const on = block % 2 === 1;
    await scoped(on);
    for (let n = 0; n < callsPerBlock; n++) {
      const began = performance.now();
      const result = await agent.call(ECHO_TOOL, { value: `v${n}` });
      if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
      (on ? samples.scoped : samples.unscoped).push(performance.now() - began);
    }
  }
  await scoped(false);
  return { unscoped: median(samples.unscoped), scoped: median(samples.scoped), calls: blocks * callsPerBlock };
}
