import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { OtherUser } from '../../support/attacker/other-user';
import { linkedAgent } from '../../support/processes/linked-agent';
import { BackendWorld } from '../../support/processes/backend-world';
import { memoryMb, resetPeakMemory } from '../../support/processes/process-memory';

jest.setTimeout(60_000);

const MiB = 1024 * 1024;

interface Flooded {
  n: number;
  status: number;
  closedBy: 'server' | 'hold';
  closedAfterMs: number | null;
  sent: number;
}

const jsonLines = <T>(stdout: string): T[] =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T);

/** One GET /healthz on a connection of its own (the worst case for a listener at its caps): its status, 0 when refused. */
function healthOnce(baseUrl: string): Promise<number> {
  return new Promise((done) => {
    const request = get(`${baseUrl}/healthz`, { agent: false, timeout: 3000 }, (response) => {
      response.resume();
      response.once('end', () => done(response.statusCode ?? 0));
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => done(0));
  });
}

/** `promise`, or a rejection naming `what` once `ms` have passed (a backend out of descriptors may never answer). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The soft and hard open-file limits of a process, from /proc. */
function openFileLimits(pid: number): { soft: number; hard: number } {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((row) => row.startsWith('Max open files'))!;
  const [soft, hard] = line.replace('Max open files', '').trim().split(/\s+/).map(Number);
  return { soft: soft!, hard: hard! };
}

/**
 * Issue 25's two attacks without a credential (docs/operations.md §1), made by another local
 * user (`nobody`) against a real backend: unfinished 8 MiB frames on agentctl upgrades, and
 * idle connections held against the listener.
 */
describe('a local user without a credential, before authentication', () => {
  const world = new BackendWorld([], { prefix: 'toolport-security-preauth-' });

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('cannot grow the backend with unfinished 8 MiB frames: each link is cut at the frame header, and a browser Origin is refused', async () => {
    const backend = await world.start();
    const attacker = new OtherUser(world.root);
    const flooder = attacker.script('frame-flooder');
    const port = new URL(backend.url).port;
    resetPeakMemory(backend.pid);
    const before = memoryMb(backend.pid, 'VmRSS');

    // 96 upgrades at once (more than the 64 of one peer), each starting a frame of 8 MiB and
    // sending all of it but its last byte. Before the fix 24 of these grew a backend 85 → 281 MB.
    const wave = await attacker.run(flooder, [port, '96', String(8 * MiB), String(8 * MiB - 1), '8000'], 30_000);
    expect(wave.code).toBe(0);
    const grownMb = memoryMb(backend.pid, 'VmHWM') - before;
    expect({ grownMb, bounded: grownMb < 40 }).toEqual({ grownMb, bounded: true });
    const outcomes = jsonLines<Flooded | { done: true }>(wave.stdout).filter((line): line is Flooded => 'n' in line);
    expect(outcomes).toHaveLength(96);
    const upgraded = outcomes.filter((outcome) => outcome.status === 101);
    // At least one peer's worth was let in; the rest were closed before their upgrade was read.
    expect(upgraded.length).toBeGreaterThanOrEqual(1);
    expect(new Set(outcomes.map((outcome) => outcome.status))).toEqual(new Set(upgraded.length === 96 ? [101] : [0, 101]));
    // Every one closed by the backend, an upgraded one within 2 s of its frame header (not after the auth timeout).
    expect(outcomes.filter((outcome) => outcome.closedBy !== 'server')).toEqual([]);
    expect(upgraded.filter((outcome) => outcome.closedAfterMs! >= 2000)).toEqual([]);

    // An upgrade from a web page (any Origin) is refused before the WebSocket exists.
    const fromPage = await attacker.run(flooder, [port, '1', '16', '16', '3000', 'https://evil.example'], 10_000);
    expect(jsonLines<Flooded>(fromPage.stdout)[0]).toMatchObject({ status: 403, closedBy: 'server', closedAfterMs: null });
    // The control: the same upgrade with no Origin gets its 101.
    const plain = await attacker.run(flooder, [port, '1', '16', '0', '500'], 10_000);
    expect(jsonLines<Flooded>(plain.stdout)[0]).toMatchObject({ status: 101 });

    // The backend still serves: /healthz, and a new session whose agentctl links and answers.
    expect(await healthOnce(backend.url)).toBe(200);
    const agent = await linkedAgent(world, await world.session('kanban-task', 'after-flood'));
    expect((await agent.call('get_task_context')).structuredContent).toMatchObject({ task_id: 'after-flood' });
  });

  it('cannot take its connections or file descriptors with idle connections: /healthz, the API and a new session work throughout', async () => {
    await world.closeAgents();
    await world.backend?.stop('SIGTERM');
    // A system's usual limit of 1024 open files, fewer than the attacker's 1200 connections.
    const backend = await world.start({ openFiles: { soft: 1024, hard: 1024 } });
    expect(openFileLimits(backend.pid)).toEqual({ soft: 1024, hard: 1024 });
    const attacker = new OtherUser(world.root);
    const holder = world.track(
      attacker.start(attacker.script('idle-holder'), [
        new URL(backend.url).port,
        '1200',
        '14000',
        // Five loopback addresses: five peers to the backend, so the per-peer cap alone does not stop it.
        '127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5',
      ]),
    );
    await holder.waitForStdout(/"holding":1200/, 10_000, 'the attacker to open its 1200 connections');

    // For 11 s (past the 10 s an idle unauthenticated connection is given, so it has reconnected):
    // /healthz on a new connection every 250 ms, the API with the admin token, a new session.
    const statuses: number[] = [];
    const until = Date.now() + 11_000;
    const polling = (async () => {
      while (Date.now() < until) {
        statuses.push(await healthOnce(backend.url));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const plugins = await within(world.api('GET', '/api/v1/plugins'), 5000, 'GET /api/v1/plugins');
    expect(plugins.status).toBe(200);
    const session = await within(world.session('kanban-task', 'while-held'), 10_000, 'starting a session');
    const agent = await within(linkedAgent(world, session), 10_000, 'its agentctl linking');
    expect((await within(agent.call('get_task_context'), 5000, 'get_task_context')).structuredContent).toMatchObject({ task_id: 'while-held' });
    const fds = readdirSync(`/proc/${backend.pid}/fd`).length;
    await polling;
    expect((await world.api('GET', '/api/v1/sessions')).status).toBe(200);

    expect(statuses.length).toBeGreaterThanOrEqual(10);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // The backend held no more than its caps allow, far below the 1200 the attacker tried.
    expect({ fds, bounded: fds < 600 }).toEqual({ fds, bounded: true });

    expect(await holder.closed).toBe(0);
    const [, stats] = jsonLines<{ opened: number; closedByServer: number; open: number }>(holder.stdout());
    // The attacker kept trying: the backend closed its connections, and it opened others.
    expect(stats!.closedByServer).toBeGreaterThan(1200 - 256);
    expect(stats!.opened).toBeGreaterThan(1200);
  });
});
