/**
 * Fan-out to many linked sessions: `count` sessions started with `launch: false`, each linked
 * by agentctl's own link and snapshot code (WsBackendLink, PullCatalog, ApplySnapshot) in this
 * process — real WebSocket links speaking the §7 frames, without an MCP server each. Times an
 * enable or disable API call to the moment the last of them had the change applied.
 */
import { AjvSchemaCompiler } from '../src/adapters/ajv/ajv-schema-compiler';
import { SilentLogger } from '../src/adapters/memory/silent-logger';
import { WsBackendLink } from '../src/adapters/websocket/ws-backend-link';
import { ApplySnapshot } from '../src/application/agentctl/apply-snapshot';
import { HeldSchemaMemo } from '../src/application/agentctl/held-schema-memo';
import { PullCatalog } from '../src/application/agentctl/pull-catalog';
import { AgentctlSession } from '../src/application/agentctl/session-identity';
import { ToolRegistry } from '../src/application/agentctl/tool-registry';
import { DEFAULT_SETTINGS } from '../src/application/settings';
import { eventually } from '../test/support/eventually';
import { cpuMs, median, rssMb } from './stats';
import type { StartedSession } from '../test/support/processes/backend-world';
import { TOGGLE_PLUGIN, type BenchWorld } from './world';

export interface LinkedSessionsFigures {
  sessions: number;
  rounds: number;
  /** API called → the last session applied the change, median and worst (ms). */
  fromCallP50: number;
  max: number;
  /** API returned → the last session applied it, median (ms). */
  p50: number;
  /** API called → the first push arrived at any session, median (ms). */
  firstPushP50: number;
  /** Backend CPU per round, median (ms). */
  backendCpuPerRound: number;
  /** CPU per round of this process, which runs every link client (ms, median). */
  clientCpuPerRound: number;
  /** Backend RSS before the sessions were started and with all of them linked (MB). */
  backendRss: { before: number; linked: number };
}

export interface LinkedSession {
  link: WsBackendLink;
  /** When each snapshot (pulled or pushed, changed or not) was stored. */
  appliedAt: number[];
  /** How many `catalog.push` requests arrived. */
  pushes: number;
  /** When each `catalog.push` request arrived. */
  pushedAt: number[];
}

async function linkSession(world: BenchWorld, index: number): Promise<LinkedSession> {
  return linkStarted(await world.session('kanban-task', `linked-${index}`, false));
}

/** Links a session started with `launch: false` as agentctl would, with no MCP server. */
export function linkStarted(started: StartedSession): LinkedSession {
  const logger = new SilentLogger();
  const registry = new ToolRegistry();
  const session = new AgentctlSession({
    task_id: started.task_id,
    session_id: started.session_id,
    workspace_id: started.workspace_id,
    surface: started.surface,
  });
  const apply = new ApplySnapshot(registry, session, new HeldSchemaMemo(new AjvSchemaCompiler()), DEFAULT_SETTINGS, logger);
  const link = new WsBackendLink({
    backendUrl: started.agentctl!.backend_url,
    sessionToken: started.agentctl!.session_token,
    requestTimeoutMs: 20_000,
    invokeTimeoutMs: 20_000,
    logger,
  });
  const pull = new PullCatalog(link, session, apply, logger);
  const linked: LinkedSession = { link, appliedAt: [], pushes: 0, pushedAt: [] };
  registry.onSwap(() => linked.appliedAt.push(performance.now()));
  link.onPush((payload) => {
    linked.pushes++;
    linked.pushedAt.push(performance.now());
    return apply.push(payload);
  });
  link.onConnected((identity) => void pull.execute(identity));
  link.connect({});
  return linked;
}

/**
 * Waits for a batch's links to have pulled their first snapshot before the next batch starts,
 * as agents arriving over time would: links still signing in count against the backend's cap
 * on unauthenticated connections (docs/operations.md §1), which 10,000 links opened at once
 * would reach, evicting idle connections the bench itself holds.
 */
export async function linkedBatch(batch: Promise<LinkedSession>[]): Promise<LinkedSession[]> {
  const linked = await Promise.all(batch);
  await eventually(() => linked.every((s) => s.appliedAt.length > 0), 60_000, 'a batch of links to pull their first snapshot', { everyMs: 2 });
  return linked;
}

/**
 * A GET sent again once when its connection was reset: after a long wait for thousands of links
 * the client may reuse a keep-alive connection the busy backend has just closed (a read
 * ECONNRESET), which says nothing about the backend. GETs only: they change nothing.
 */
export async function getOnceMore<T>(world: BenchWorld, path: string): Promise<T> {
  try {
    return (await world.api<T>('GET', path)).body;
  } catch (error) {
    const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
    if (cause?.code !== 'ECONNRESET') throw error;
    return (await world.api<T>('GET', path)).body;
  }
}

export async function measureLinkedSessions(world: BenchWorld, count: number, rounds: number): Promise<LinkedSessionsFigures> {
  const rssBefore = rssMb(world.backend.pid);
  const sessions: LinkedSession[] = [];
  for (let next = 0; next < count;) {
    const batch = Array.from({ length: Math.min(16, count - next) }, () => linkSession(world, next++));
    sessions.push(...(await linkedBatch(batch)));
    if (sessions.length % 1000 === 0) process.stderr.write(`bench:   ${sessions.length} sessions linked\n`);
  }
  try {
    await eventually(() => sessions.every((s) => s.appliedAt.length > 0), 60_000 + count * 20, `${count} links to pull their first snapshot`, { everyMs: 20 });
    const rssLinked = rssMb(world.backend.pid);
    const fromCall: number[] = [];
    const fromReturn: number[] = [];
    const cpu: number[] = [];
    const clientCpu: number[] = [];
    const firstPush: number[] = [];
    for (let round = -1; round < rounds; round++) {
      const before = sessions.map((s) => s.appliedAt.length);
      const pushesBefore = sessions.map((s) => s.pushedAt.length);
      const current = (await getOnceMore<{ status: string }>(world, `/api/v1/plugins/${TOGGLE_PLUGIN}`)).status;
      const verb = current === 'active' ? 'disable' : 'enable';
      const cpuBefore = cpuMs(world.backend.pid);
      const clientBefore = process.cpuUsage();
      const called = performance.now();
      const answer = await world.api('POST', `/api/v1/plugins/${TOGGLE_PLUGIN}/${verb}`);
      const returned = performance.now();
      if (answer.status !== 200) throw new Error(`${verb}: ${answer.status} ${JSON.stringify(answer.body)}`);
      await eventually(() => sessions.every((s, i) => s.appliedAt.length > before[i]!), 30_000, `the change at ${count} linked sessions`, { everyMs: 5 });
      const last = Math.max(...sessions.map((s, i) => s.appliedAt[before[i]!]!));
      if (round < 0) continue;
      const clientUsed = process.cpuUsage(clientBefore);
      clientCpu.push((clientUsed.user + clientUsed.system) / 1000);
      firstPush.push(Math.min(...sessions.map((s, i) => s.pushedAt[pushesBefore[i]!] ?? Infinity)) - called);
      fromCall.push(last - called);
      fromReturn.push(last - returned);
      cpu.push(cpuMs(world.backend.pid) - cpuBefore);
    }
    return {
      sessions: count,
      rounds,
      fromCallP50: median(fromCall),
      max: Math.max(...fromCall),
      p50: median(fromReturn),
      firstPushP50: median(firstPush),
      backendCpuPerRound: median(cpu),
      clientCpuPerRound: median(clientCpu),
      backendRss: { before: rssBefore, linked: rssLinked },
    };
  } finally {
    await Promise.all(sessions.map((s) => s.link.close()));
  }
}
