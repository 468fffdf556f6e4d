import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { apiClient, startBackend, type RunningBackend } from '../support/backend-process';
import { chaosDir, closeClients, connectMcp, eventually, exposed, tearDown, textOf, writeSlowPlugin, type SessionAnswer } from './support/chaos-kit';

const PLUGIN = 'chaos.steady';

interface SessionRow {
  session_id: string;
  status: string;
  agentctl_pid: number | null;
}

/** One session's agentctl dies (SIGKILL) while another session carries on. */
describe('chaos: an agentctl is SIGKILLed', () => {
  let dir: string;
  let backend: RunningBackend | undefined;
  let api: ReturnType<typeof apiClient>;
  let clients: Client[] = [];
  const sessions: SessionAnswer[] = [];

  beforeAll(async () => {
    dir = chaosDir('agentctl-kill');
    backend = await startBackend({ dataDir: join(dir, 'data') });
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

  it('marks its session dead; the other sessions still list and call tools', async () => {
    const victim = sessions[1];
    const rows = (await api<SessionRow[]>('GET', '/api/v1/sessions')).body;
    const pid = rows.find((row) => row.session_id === victim.session_id)!.agentctl_pid!;
    expect(pid).toBeGreaterThan(0);

    // A call in flight on the victim, and one on a survivor, when the agentctl dies.
    // (An MCP client may retry a broken stream until its own timeout: bound it.)
    const victimCall = clients[1].callTool({ name: exposed(PLUGIN, 'work'), arguments: { ms: 2000 } }, undefined, { timeout: 15_000 }).then(
      (result) => (result.isError ? 'failed' : 'answered'),
      () => 'failed',
    );
    const survivorCall = clients[0].callTool({ name: exposed(PLUGIN, 'work'), arguments: { ms: 1000 } });
    await new Promise((resolve) => setTimeout(resolve, 200));
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
    // The call on the dead session never got an answer; the agent gives up on that server.
    await clients[1].close();
    expect(await victimCall).toBe('failed');

    const list = (await api<SessionRow[]>('GET', '/api/v1/sessions')).body;
    for (const other of [sessions[0], sessions[2]]) expect(list.find((row) => row.session_id === other.session_id)!.status).toBe('live');

    const survived = await survivorCall;
    expect(survived.isError).toBeFalsy();
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
