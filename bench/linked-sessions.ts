/**
 * Fan-out to many linked sessions: `count` sessions started with `launch: false`, each linked
 * by agentctl's own link and snapshot code (bench/link-client.ts) — real WebSocket links
 * speaking the §7 frames, without an MCP server each. Times an enable or disable API call to
 * the moment the last of them had the change applied. The clients run in this process, or
 * spread over `clientProcesses` child processes (bench/link-clients.ts) when one event loop
 * reading, applying and answering every push would be what is measured.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../test/support/eventually';
import { allAppliedSince, linkStarted, markOf, now, roundAt, type LinkedSession, type LinkTarget, type RoundAt } from './link-client';
import { cpuMs, median, rssMb } from './stats';
import { TOGGLE_PLUGIN, type BenchWorld } from './world';

export { linkStarted, type LinkedSession } from './link-client';

export interface LinkedSessionsFigures {
  sessions: number;
  rounds: number;
  /** Processes the link clients ran in (1: this one). */
  clientProcesses: number;
  /** API called → the last session applied the change, median and worst (ms). */
  fromCallP50: number;
  max: number;
  /** API returned → the last session applied it, median (ms). */
  p50: number;
  /** API called → the first push arrived at any session, median (ms). */
  firstPushP50: number;
  /** Backend CPU per round, median (ms). */
  backendCpuPerRound: number;
  /** CPU per round of the process(es) running the link clients, summed (ms, median). */
  clientCpuPerRound: number;
  /** Each measured round: the call made, API called → first push arrived and → last applied (ms). */
  perRound: Array<{ verb: string; firstPush: number; fromCall: number }>;
  /** Backend RSS before the sessions were started and with all of them linked (MB). */
  backendRss: { before: number; linked: number };
}

/** What bench/link-clients.ts is told, and what it answers. */
export type ClientCommand = { type: 'link'; targets: LinkTarget[] } | { type: 'mark' } | { type: 'close' };
export type ClientReply = { type: 'linked' } | { type: 'marked' } | { type: 'applied'; at: RoundAt; cpuMs: number };

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

/** Where the link clients run: what a round needs of them. */
interface Clients {
  /** Links a batch and resolves once each pulled its first snapshot. */
  link(batch: LinkTarget[]): Promise<void>;
  /** Notes what every client holds now; the next applied() counts from here. */
  mark(): Promise<void>;
  /** Resolves once every client applied a change since the mark. */
  applied(timeoutMs: number): Promise<RoundAt & { cpuMs: number }>;
  close(): Promise<void>;
}

function inProcess(): Clients {
  const sessions: LinkedSession[] = [];
  let mark = markOf(sessions);
  let cpu = process.cpuUsage();
  return {
    async link(batch) {
      sessions.push(...(await linkedBatch(batch.map(async (target) => linkStarted(target)))));
    },
    async mark() {
      mark = markOf(sessions);
      cpu = process.cpuUsage();
    },
    async applied(timeoutMs) {
      await eventually(() => allAppliedSince(sessions, mark), timeoutMs, `the change at ${sessions.length} linked sessions`, { everyMs: 5 });
      const used = process.cpuUsage(cpu);
      return { ...roundAt(sessions, mark), cpuMs: (used.user + used.system) / 1000 };
    },
    async close() {
      await Promise.all(sessions.map((s) => s.link.close()));
    },
  };
}

/** One bench/link-clients.ts child and its next reply. */
class ClientProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  private waiter: { type: ClientReply['type']; resolve: (reply: ClientReply) => void; reject: (error: Error) => void } | undefined;

  constructor() {
    // IPC only: the sessions' tokens never reach the child's argv or environment.
    this.child = fork(join(__dirname, 'link-clients.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('message', (reply: ClientReply) => {
      const waiter = this.waiter;
      if (waiter?.type !== reply.type) return;
      this.waiter = undefined;
      waiter.resolve(reply);
    });
    void this.exited.then(() => this.waiter?.reject(new Error('a link client process exited')));
  }

  /** Sends `command` (if any) and resolves with the next reply of `type`. */
  next<T extends ClientReply['type']>(type: T, timeoutMs: number, command?: ClientCommand): Promise<Extract<ClientReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from a link client process within ${timeoutMs} ms`)), timeoutMs);
      this.waiter = {
        type,
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply as Extract<ClientReply, { type: T }>);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      if (command) this.child.send(command);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.connected) this.child.send({ type: 'close' } satisfies ClientCommand);
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(killer);
  }
}

function forked(count: number): Clients {
  const children = Array.from({ length: count }, () => new ClientProcess());
  const pendingApplied: Array<Promise<Extract<ClientReply, { type: 'applied' }>>> = [];
  return {
    async link(batch) {
      await Promise.all(children.map((child, c) => child.next('linked', 60_000, { type: 'link', targets: batch.filter((_, i) => i % children.length === c) })));
    },
    async mark() {
      pendingApplied.length = 0;
      await Promise.all(
        children.map(async (child) => {
          // The 'applied' waiter is set only after 'marked' arrives, so no reply is missed: the
          // child answers 'applied' no sooner than its next interval tick.
          await child.next('marked', 10_000, { type: 'mark' });
          pendingApplied.push(child.next('applied', 60_000));
        }),
      );
    },
    async applied() {
      const replies = await Promise.all(pendingApplied);
      return {
        firstPush: Math.min(...replies.map((r) => r.at.firstPush)),
        lastApplied: Math.max(...replies.map((r) => r.at.lastApplied)),
        cpuMs: replies.reduce((sum, r) => sum + r.cpuMs, 0),
      };
    },
    async close() {
      await Promise.all(children.map((child) => child.stop()));
    },
  };
}

export async function measureLinkedSessions(world: BenchWorld, count: number, rounds: number, clientProcesses = 0): Promise<LinkedSessionsFigures> {
  const rssBefore = rssMb(world.backend.pid);
  const clients = clientProcesses > 0 ? forked(clientProcesses) : inProcess();
  try {
    for (let next = 0, linked = 0; next < count;) {
      const batch = await Promise.all(Array.from({ length: Math.min(16, count - next) }, () => world.session('kanban-task', `linked-${next++}`, false)));
      await clients.link(batch);
      linked += batch.length;
      if (linked % 1000 === 0) process.stderr.write(`bench:   ${linked} sessions linked\n`);
    }
    const rssLinked = rssMb(world.backend.pid);
    const fromCall: number[] = [];
    const fromReturn: number[] = [];
    const cpu: number[] = [];
    const clientCpu: number[] = [];
    const firstPush: number[] = [];
    const perRound: LinkedSessionsFigures['perRound'] = [];
    for (let round = -1; round < rounds; round++) {
      const current = (await getOnceMore<{ status: string }>(world, `/api/v1/plugins/${TOGGLE_PLUGIN}`)).status;
      const verb = current === 'active' ? 'disable' : 'enable';
      await clients.mark();
      const cpuBefore = cpuMs(world.backend.pid);
      const called = now();
      const answer = await world.api('POST', `/api/v1/plugins/${TOGGLE_PLUGIN}/${verb}`);
      const returned = now();
      if (answer.status !== 200) throw new Error(`${verb}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const at = await clients.applied(30_000);
      if (round < 0) continue;
      cpu.push(cpuMs(world.backend.pid) - cpuBefore);
      clientCpu.push(at.cpuMs);
      firstPush.push(at.firstPush - called);
      fromCall.push(at.lastApplied - called);
      fromReturn.push(at.lastApplied - returned);
      perRound.push({ verb, firstPush: at.firstPush - called, fromCall: at.lastApplied - called });
    }
    return {
      sessions: count,
      rounds,
      clientProcesses: Math.max(1, clientProcesses),
      fromCallP50: median(fromCall),
      max: Math.max(...fromCall),
      p50: median(fromReturn),
      firstPushP50: median(firstPush),
      backendCpuPerRound: median(cpu),
      clientCpuPerRound: median(clientCpu),
      perRound,
      backendRss: { before: rssBefore, linked: rssLinked },
    };
  } finally {
    await clients.close();
  }
}
