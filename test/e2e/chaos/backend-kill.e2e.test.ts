import { join } from 'node:path';
import { adminApi } from '../../support/clients/admin-api';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { exposed, invocationCount, writeSlowPlugin } from '../../support/packages/slow-plugin';
import type { RunningBackend } from '../../support/processes/backend-process';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import { processesMentioning } from '../../support/processes/process-table';

const PLUGINS = ['chaos.alpha', 'chaos.beta'];

interface PluginRecord {
  id: string;
  version: string;
  status: string;
  package_sha256: string;
  tools: string[];
  installed_at: string;
}

/** The backend dies (SIGKILL) while agents are calling plugin tools; a new one takes over. */
describe('chaos: the backend is SIGKILLed under load', () => {
  const world = new BackendWorld([], { prefix: 'toolport-chaos-backend-kill-' });
  let first: RunningBackend | undefined;
  let second: RunningBackend | undefined;
  let third: RunningBackend | undefined;
  let clients: McpAgent[];
  let sessions: StartedSession[];

  beforeAll(async () => {
    first = await world.start({ args: ['--restart-backoff-ms', '100'] });
    for (const id of PLUGINS) await world.install(writeSlowPlugin(join(world.root, `pkg-${id}`), id));
    ({ sessions, agents: clients } = await world.openSessions(['kanban-task', 'office-task', 'kanban-task']));
  }, 60_000);

  afterAll(async () => {
    // The killed backend's agentctls and plugins are orphans in their own process groups: the sweep finds them.
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('agentctls keep their built-ins, end calls in flight at once, and reconnect to the next backend with records intact', async () => {
    const api = adminApi(first!.url, first!.token);
    const pluginsBefore = (await api<PluginRecord[]>('GET', '/api/v1/plugins')).body;
    expect(pluginsBefore.map((p) => [p.id, p.status])).toEqual(PLUGINS.map((id) => [id, 'active']));
    const sessionsBefore = (await api<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions')).body;

    // Load: long calls on every session and both plugins; wait until each reached its plugin.
    const inFlight: Array<Promise<{ text: string; isError: boolean; endedAt: number }>> = [];
    for (let i = 0; i < 24; i++) {
      const client = clients[i % clients.length];
      inFlight.push(
        client.call(exposed(PLUGINS[i % 2], 'work'), { ms: 20_000 }).then((r) => ({ text: resultText(r), isError: r.isError === true, endedAt: Date.now() })),
      );
    }
    await eventually(() => (PLUGINS.every((id) => invocationCount(world.dataDir, id) >= 12) ? true : undefined), 10_000, 'every call to reach its plugin');

    const killedAt = Date.now();
    await first!.stop('SIGKILL');

    const ended = await Promise.all(inFlight);
    for (const call of ended) {
      expect(call.isError).toBe(true);
      expect(call.text).toMatch(/^\[BACKEND_UNAVAILABLE\] .*may have run/);
      // Promptly: the link drop ends them, not the 30 s tool deadline.
      expect(call.endedAt - killedAt).toBeLessThan(3000);
    }

    // While no backend runs: built-ins still answer, plugin calls fail closed at once.
    for (const [index, client] of clients.entries()) {
      const context = await client.call('get_task_context');
      expect(context.isError).toBeFalsy();
      expect(context.structuredContent).toMatchObject({ session_id: sessions[index].session_id, task_id: `t-${index}` });
      const t0 = Date.now();
      const refused = await client.call(exposed(PLUGINS[0], 'work'), { ms: 0 });
      expect(refused.isError).toBe(true);
      expect(resultText(refused)).toMatch(/^\[BACKEND_UNAVAILABLE\] /);
      expect(Date.now() - t0).toBeLessThan(2000);
    }

    // A new serve on the same data dir: same records, same sessions, and the agentctls come back.
    second = await world.start({ args: ['--restart-backoff-ms', '100'] });
    const api2 = adminApi(second.url, second.token);
    expect(second.token).toBe(first!.token);
    const pluginsAfter = (await api2<PluginRecord[]>('GET', '/api/v1/plugins')).body;
    const stable = (list: PluginRecord[]) =>
      list.map(({ id, version, status, package_sha256, tools, installed_at }) => ({ id, version, status, package_sha256, tools, installed_at }));
    expect(stable(pluginsAfter)).toEqual(stable(pluginsBefore));
    const sessionsAfter = (await api2<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions')).body;
    expect(sessionsAfter.map((s) => s.session_id).sort()).toEqual(sessionsBefore.map((s) => s.session_id).sort());
    expect(sessionsAfter.every((s) => s.status === 'live')).toBe(true);

    const reconnectStarted = Date.now();
    for (const [index, client] of clients.entries()) {
      const result = await eventually(
        async () => {
          const r = await client.call(exposed(PLUGINS[index % 2], 'work'), { ms: 0 });
          return r.isError ? undefined : r;
        },
        8000,
        `session ${index} to call a plugin through the new backend`,
        { retryErrors: true },
      );
      expect(resultText(result)).toMatch(/^done /);
    }
    expect(Date.now() - reconnectStarted).toBeLessThan(8000);
    const context = await clients[0].call('get_task_context');
    expect(context.structuredContent).toMatchObject({ session_id: sessions[0].session_id });

    // An adopted agentctl (not the new backend's child) that dies still leaves its session dead.
    const rows = (await api2<Array<{ session_id: string; agentctl_pid: number }>>('GET', '/api/v1/sessions')).body;
    const victim = rows.find((row) => row.session_id === sessions[2].session_id)!;
    process.kill(victim.agentctl_pid, 'SIGKILL');
    await eventually(
      async () => {
        const list = (await api2<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions')).body;
        return list.find((row) => row.session_id === victim.session_id && row.status === 'dead');
      },
      5000,
      'the adopted session to be dead',
      { retryErrors: true },
    );

    // A graceful stop of the new backend also stops the agentctls it adopted, and says so.
    const stopStarted = Date.now();
    expect(await second!.stop('SIGTERM')).toBe(0);
    expect(Date.now() - stopStarted).toBeLessThan(10_000);
    const agentctlsLeft = () => processesMentioning(world.dataDir).filter((entry) => entry.cmdline.includes(' agentctl '));
    await eventually(() => (agentctlsLeft().length === 0 ? true : undefined), 5000, 'the adopted agentctls to exit').catch(() => undefined);
    expect(agentctlsLeft()).toEqual([]);
    third = await world.start();
    const finalRows = (await adminApi(third.url, third.token)<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions')).body;
    const statusOf = (id: string) => finalRows.find((row) => row.session_id === id)?.status;
    expect(sessions.map((session) => statusOf(session.session_id))).toEqual(['stopped', 'stopped', 'dead']);
  }, 90_000);
});
