import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { apiClient, startBackend, type RunningBackend } from '../support/backend-process';
import { chaosDir, closeClients, connectMcp, eventually, exposed, invocationCount, tearDown, textOf, writeSlowPlugin, type SessionAnswer } from './support/chaos-kit';

const PLUGIN = 'chaos.steady';

interface SessionRow {
  session_id: string;
  status: string;
  agentctl_pid: number | null;
}

/** One session's agentctl dies (SIGKILL) while another session carries on. */
describe('chaos: an agentctl is SIGKILLed', () => {
  let dir: string;
  let dataDir: string;
  let backend: RunningBackend | undefined;
  let api: ReturnType<typeof apiClient>;
  let clients: Client[] = [];
  const sessions: SessionAnswer[] = [];

  beforeAll(async () => {
    dir = chaosDir('agentctl-kill');
    dataDir = join(dir, 'data');
    backend = await startBackend({ dataDir, args: ['--plugin-max-inflight', '4'] });
    api = apiClient(backend.url, backend.token);
    expect((await api('POST', '/api/v1/plugins', { path: writeSlowPlugin(join(dir, 'pkg'), PLUGIN) })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const session = await api<SessionAnswer>('POST', '/api/v1/sessions', { task_id: `t-${i}`, workspace_id: 'w', surface: 'kanban-task' });
      expect(session.status).toBe(201);
      sessions.push(session.body);
      clients.push(await connectMcp(session.body.mcp!.url, session.body.mcp!.token));
    }
  }, 60_000);

  afterAll(async () => {
    await closeClients(clients);
    clients = [];
    await tearDown(dir, [backend], []);
  }, 30_000);

  it('marks its session dead and frees the plugin call slots it held; the other sessions still list and call tools', async () => {
    const victim = sessions[1];
    const rows = (await api<SessionRow[]>('GET', '/api/v1/sessions')).body;
    const pid = rows.find((row) => row.session_id === victim.session_id)!.agentctl_pid!;
    expect(pid).toBeGreaterThan(0);

    // The victim holds every one of the plugin's call slots (cap 4) when its agentctl dies.
    const victimCalls = Array.from({ length: 4 }, () =>
      clients[1].callTool({ name: exposed(PLUGIN, 'work'), arguments: { ms: 20_000 } }, undefined, { timeout: 25_000 }).then(
        (result) => (result.isError ? 'failed' : 'answered'),
        () => 'failed',
      ),
    );
    await eventually(() => (invocationCount(dataDir, PLUGIN) >= 4 ? true : undefined), 10_000, 'the calls to reach the plugin');
    const busy = await clients[0].callTool({ name: exposed(PLUGIN, 'work'), arguments: { ms: 0 } });
    expect(textOf(busy)).toMatch(/^\[PLUGIN_BUSY\] /);
    process.kill(pid, 'SIGKILL');

    const dead = await eventually(
      async () => {
        const list = (await api<SessionRow[]>('GET', '/api/v1/sessions')).body;
        return list.find((row) => row.session_id === victim.session_id && row.status === 'dead');
      },
      5000,
      'the session to be dead',
    );
    expect(dead.status).toBe('dead');
    // Its calls were cancelled down to the plugin: the slots are free again long before 20 s.
    const freed = await eventually(
      async () => {
        const result = await clients[0].callTool({ name: exposed(PLUGIN, 'work'), arguments: { ms: 0 } });
        return result.isError ? undefined : result;
      },
      5000,
      'a call slot to be released',
    );
    expect(textOf(freed)).toMatch(/^done /);
    // The calls on the dead session never got an answer; the agent gives up on that server.
    await clients[1].close();
    expect(await Promise.all(victimCalls)).toEqual(['failed', 'failed', 'failed', 'failed']);

    const list = (await api<SessionRow[]>('GET', '/api/v1/sessions')).body;
    for (const other of [sessions[0], sessions[2]]) expect(list.find((row) => row.session_id === other.session_id)!.status).toBe('live');

    for (const index of [0, 2]) {
      const { tools } = await clients[index].listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['get_task_context', exposed(PLUGIN, 'work')]);
      const result = await clients[index].callTool({ name: exposed(PLUGIN, 'work'), arguments: { ms: 0 } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toMatch(/^done /);
    }
    // The backend still starts new sessions after losing one.
    const fresh = await api<SessionAnswer>('POST', '/api/v1/sessions', { task_id: 't-new', workspace_id: 'w', surface: 'office-task' });
    expect(fresh.status).toBe(201);
    const late = await connectMcp(fresh.body.mcp!.url, fresh.body.mcp!.token);
    clients.push(late);
    expect((await late.callTool({ name: 'get_task_context' })).structuredContent).toMatchObject({ task_id: 't-new', surface: 'office-task' });
  }, 60_000);
});
