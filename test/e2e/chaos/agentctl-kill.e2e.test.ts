import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { exposed, invocationCount, writeSlowPlugin } from '../../support/packages/slow-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';

const PLUGIN = 'chaos.steady';

interface SessionRow {
  session_id: string;
  status: string;
  agentctl_pid: number | null;
}

/** One session's agentctl dies (SIGKILL) while another session carries on. */
describe('chaos: an agentctl is SIGKILLed', () => {
  const world = new BackendWorld(['--plugin-max-inflight', '4'], { prefix: 'toolport-chaos-agentctl-kill-' });
  let clients: McpAgent[];
  let sessions: StartedSession[];

  beforeAll(async () => {
    await world.start();
    await world.install(writeSlowPlugin(join(world.root, 'pkg'), PLUGIN));
    ({ sessions, agents: clients } = await world.openSessions(['kanban-task', 'kanban-task', 'kanban-task']));
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('marks its session dead and frees the plugin call slots it held; the other sessions still list and call tools', async () => {
    const victim = sessions[1];
    const rows = (await world.api<SessionRow[]>('GET', '/api/v1/sessions')).body;
    const pid = rows.find((row) => row.session_id === victim.session_id)!.agentctl_pid!;
    expect(pid).toBeGreaterThan(0);

    // The victim holds every one of the plugin's call slots (cap 4) when its agentctl dies.
    const victimCalls = Array.from({ length: 4 }, () =>
      clients[1].call(exposed(PLUGIN, 'work'), { ms: 20_000 }, { timeout: 25_000 }).then(
        (result) => (result.isError ? 'failed' : 'answered'),
        () => 'failed',
      ),
    );
    await eventually(() => (invocationCount(world.dataDir, PLUGIN) >= 4 ? true : undefined), 10_000, 'the calls to reach the plugin');
    const busy = await clients[0].call(exposed(PLUGIN, 'work'), { ms: 0 });
    expect(resultText(busy)).toMatch(/^\[PLUGIN_BUSY\] /);
    process.kill(pid, 'SIGKILL');

    const dead = await eventually(
      async () => {
        const list = (await world.api<SessionRow[]>('GET', '/api/v1/sessions')).body;
        return list.find((row) => row.session_id === victim.session_id && row.status === 'dead');
      },
      5000,
      'the session to be dead',
      { retryErrors: true },
    );
    expect(dead.status).toBe('dead');
    // Its calls were cancelled down to the plugin: the slots are free again long before 20 s.
    const freed = await eventually(
      async () => {
        const result = await clients[0].call(exposed(PLUGIN, 'work'), { ms: 0 });
        return result.isError ? undefined : result;
      },
      5000,
      'a call slot to be released',
      { retryErrors: true },
    );
    expect(resultText(freed)).toMatch(/^done /);
    // The calls on the dead session never got an answer; the agent gives up on that server.
    await clients[1].close();
    expect(await Promise.all(victimCalls)).toEqual(['failed', 'failed', 'failed', 'failed']);

    const list = (await world.api<SessionRow[]>('GET', '/api/v1/sessions')).body;
    for (const other of [sessions[0], sessions[2]]) expect(list.find((row) => row.session_id === other.session_id)!.status).toBe('live');

    for (const index of [0, 2]) {
      expect(await clients[index].toolNames()).toEqual(['get_task_context', exposed(PLUGIN, 'work')]);
      const result = await clients[index].call(exposed(PLUGIN, 'work'), { ms: 0 });
      expect(result.isError).toBeFalsy();
      expect(resultText(result)).toMatch(/^done /);
    }
    // The backend still starts new sessions after losing one.
    const late = await world.agent(await world.session('office-task', 't-new'));
    expect((await late.call('get_task_context')).structuredContent).toMatchObject({ task_id: 't-new', surface: 'office-task' });
  }, 60_000);
});
