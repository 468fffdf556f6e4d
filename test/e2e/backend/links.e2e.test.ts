import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { eventually } from '../../support/eventually';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { agentctlArgs, TOOLPORT_BIN } from '../../support/processes/toolport-paths';

jest.setTimeout(45_000);

interface SessionRow {
  session_id: string;
  status: string;
  last_linked_at: string | null;
}

/** docs/agentctl.md rev 2: an agentctl that only dials out, and sessions that know when their agentctl is gone. */
describe('backend: agentctls anywhere, over their own link', () => {
  const GRACE_MS = 1500;
  let world: BackendWorld;

  beforeEach(async () => {
    world = new BackendWorld(['--session-grace-ms', String(GRACE_MS)]);
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.links', ['add_tag']));
  });

  afterEach(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function session(sessionId: string): Promise<SessionRow> {
    const rows = (await world.api<SessionRow[]>('GET', '/api/v1/sessions')).body;
    return rows.find((row) => row.session_id === sessionId)!;
  }

  it('an agentctl with --no-control-api serves none and gets each change over its link: exactly one list_changed each', async () => {
    const started = await world.session('kanban-task', 'task-outbound', false);
    const agentctl = await world.startAgentctl({
      backendUrl: started.agentctl!.backend_url,
      args: ['--no-control-api'],
      tokens: { session: started.agentctl!.session_token, mcp: 'outbound-mcp', control: 'ignored-control-token' },
    });
    expect(agentctl.controlUrl).toBeNull();
    const port = new URL(agentctl.mcpUrl).port;
    const put = await fetch(`http://127.0.0.1:${port}/api/v1/mcp/plugin-tools`, {
      method: 'PUT',
      headers: { authorization: 'Bearer ignored-control-token', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(put.status).toBe(404);
    const agent = await world.connect(agentctl.mcpUrl, 'outbound-mcp');
    await eventually(async () => (await agent.toolNames()).includes('kandev_e2e_links_add_tag'), 5000, 'the first snapshot over the link');

    expect((await world.api('POST', '/api/v1/plugins/e2e.links/disable')).body.status).toBe('disabled');
    await agent.waitForListChanged(1);
    expect(await agent.toolNames()).not.toContain('kandev_e2e_links_add_tag');
    expect((await world.api('POST', '/api/v1/plugins/e2e.links/enable')).body.status).toBe('active');
    await agent.waitForListChanged(2);
    expect(await agent.toolNames()).toContain('kandev_e2e_links_add_tag');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agent.listChanged()).toBe(2);
    expect((await session(started.session_id)).last_linked_at).toEqual(expect.any(String));
  });

  it('a stdio session is dead within a second of its client closing', async () => {
    const started = await world.session('kanban-task', 'task-stdio', false);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...agentctlArgs(), '--stdio', '--backend-url', started.agentctl!.backend_url],
      env: { PATH: process.env.PATH ?? '', TOOLPORT_SESSION_TOKEN: started.agentctl!.session_token },
      cwd: world.root,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
    await client.connect(transport);
    await eventually(async () => (await client.listTools()).tools.some((t) => t.name === 'kandev_e2e_links_add_tag'), 5000, 'the stdio agentctl to link');
    expect((await session(started.session_id)).status).toBe('live');
    const closed = Date.now();
    await client.close();
    await eventually(async () => (await session(started.session_id)).status === 'dead', 2000, 'the session to be dead');
    expect(Date.now() - closed).toBeLessThan(1000);
  });

  it('a killed hand-started agentctl leaves its session dead after the grace period; it is live again when it comes back', async () => {
    const started = await world.session('kanban-task', 'task-killed', false);
    const tokens = { session: started.agentctl!.session_token, mcp: 'killed-mcp', control: 'killed-control' };
    const first = await world.startAgentctl({ backendUrl: started.agentctl!.backend_url, tokens });
    await eventually(async () => (await session(started.session_id)).status === 'live', 5000, 'the first link');
    const linkedAt = (await session(started.session_id)).last_linked_at;

    // Taken before the kill: the link cannot drop earlier, so the backend's grace starts after it.
    const killed = Date.now();
    await first.stop('SIGKILL');
    // Within the grace period it stays live: the link may come back.
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS / 2));
    expect((await session(started.session_id)).status).toBe('live');
    await eventually(async () => (await session(started.session_id)).status === 'dead', GRACE_MS + 3000, 'the session to be dead');
    // Node rounds timers to the millisecond, so one may fire a millisecond or two early.
    expect(Date.now() - killed).toBeGreaterThanOrEqual(GRACE_MS - 5);
    // A dead session gets no pushes and no warnings about them.
    const warningsBefore = world.backend
      .stderr()
      .split('\n')
      .filter((line) => line.includes('catalog push failed')).length;
    expect((await world.api('POST', '/api/v1/plugins/e2e.links/disable')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      world.backend
        .stderr()
        .split('\n')
        .filter((line) => line.includes('catalog push failed')).length,
    ).toBe(warningsBefore);

    const second = await world.startAgentctl({ backendUrl: started.agentctl!.backend_url, tokens });
    await eventually(async () => (await session(started.session_id)).status === 'live', 5000, 'the session live again');
    expect((await session(started.session_id)).last_linked_at! > linkedAt!).toBe(true);
    const agent = await world.connect(second.mcpUrl, tokens.mcp);
    expect(await agent.toolNames()).not.toContain('kandev_e2e_links_add_tag');
  });

  it('session start --no-launch prints the command and environment that run the agentctl; session list shows when each last linked', async () => {
    const env = { TOOLPORT_URL: world.backend.url, TOOLPORT_ADMIN_TOKEN: world.backend.token };
    const run = await runToolport(['session', 'start', '--task', 'task-cli', '--workspace', 'ws', '--surface', 'kanban-task', '--no-launch'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/is starting/);
    const token = /TOOLPORT_SESSION_TOKEN=(\S+)/.exec(run.stdout)?.[1];
    expect(token).toEqual(expect.any(String));
    const command = /^ {2}(\S+ agentctl .* --stdio)$/m.exec(run.stdout)?.[1];
    expect(command).toContain(`--backend-url ${world.backend.url}`);
    // An MCP client's PATH seldom holds toolport: the command names bin/toolport by its absolute path.
    expect(command!.split(' ')[0]).toBe(TOOLPORT_BIN);
    // The printed command, run as printed with the printed environment, links the session.
    const args = command!
      .split(' ')
      .slice(1)
      .filter((arg) => arg !== '--stdio');
    const agentctl = await world.startAgentctl({
      command: [TOOLPORT_BIN, 'agentctl'],
      backendUrl: world.backend.url,
      args: args.slice(args.indexOf('--backend-url') + 2),
      tokens: { session: token!, mcp: 'cli-mcp', control: '' },
    });
    expect(agentctl.controlUrl).toBeNull();
    const list = await runToolport(['session', 'list'], { env });
    await eventually(async () => (await runToolport(['session', 'list'], { env })).stdout.includes('live'), 5000, 'the session to link');
    expect(list.stdout).toMatch(/LAST LINKED/);
  });
});
