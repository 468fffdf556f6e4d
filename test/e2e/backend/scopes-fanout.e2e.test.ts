import { join } from 'node:path';
import { connectSdkClient, type ClientKind, type SdkClient } from '../../agentctl/sdk-clients';
import { eventually } from '../../support/eventually';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import { agentctlArgs } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

/** One session of the matrix: its view, the MCP era of its client, and how the client reaches agentctl. */
interface Seat {
  name: string;
  workspace: string;
  profile: string;
  kind: ClientKind;
  transport: 'http' | 'stdio';
}

const SEATS: Seat[] = [
  { name: 'wide over HTTP, SDK v1', workspace: 'ws-a', profile: 'default', kind: 'v1', transport: 'http' },
  { name: 'wide over stdio, SDK v2', workspace: 'ws-a', profile: 'default', kind: 'v2 auto', transport: 'stdio' },
  { name: 'narrow over HTTP, SDK v2', workspace: 'ws-b', profile: 'narrow', kind: 'v2 auto', transport: 'http' },
  { name: 'narrow over stdio, SDK v1', workspace: 'ws-b', profile: 'narrow', kind: 'v1', transport: 'stdio' },
];

const SCOPED = 'kandev_e2e_scoped_add_tag';
const SCOPED_PEEK = 'kandev_e2e_scoped_peek';
const OTHER = 'kandev_e2e_other_add_tag';

/**
 * docs/catalog-and-sessions.md, "Scopes": every session sees exactly its view, and a scope or
 * profile change gives exactly one list_changed to each session whose tools it changes (both
 * MCP eras, HTTP and stdio) and none to any other.
 */
describe('backend: scope and profile changes reach exactly the sessions they affect', () => {
  let world: BackendWorld;
  const clients: SdkClient[] = [];

  beforeEach(async () => {
    world = new BackendWorld();
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg-scoped'), 'e2e.scoped', ['add_tag', 'peek']));
    await world.install(writeProbePlugin(join(world.root, 'pkg-other'), 'e2e.other', ['add_tag']));
    expect((await world.api('PUT', '/api/v1/profiles/narrow', { include: ['e2e.scoped'] })).status).toBe(200);
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function seat(seat: Seat): Promise<SdkClient> {
    const launch = seat.transport === 'http';
    const body = { task_id: `task-${clients.length}`, workspace_id: seat.workspace, surface: 'kanban-task', profile: seat.profile, launch };
    const answer = await world.api<StartedSession>('POST', '/api/v1/sessions', body);
    if (answer.status !== 201) throw new Error(`session start failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    const started = answer.body;
    const client = await connectSdkClient(
      seat.kind,
      launch
        ? { http: started.mcp!.url, token: started.mcp!.token }
        : {
            stdio: {
              command: process.execPath,
              args: [...agentctlArgs(), '--stdio', '--backend-url', started.agentctl!.backend_url],
              env: { PATH: process.env.PATH ?? '', TOOLPORT_SESSION_TOKEN: started.agentctl!.session_token },
              cwd: world.root,
            },
          },
    );
    clients.push(client);
    return client;
  }

  async function view(workspace: string, profile: string): Promise<string[]> {
    const answer = await world.api<{ tools: Array<{ exposed_name: string }> }>(
      'GET',
      `/api/v1/catalog?workspace=${workspace}&profile=${profile}&surface=kanban-task`,
    );
    return answer.body.tools.map((tool) => tool.exposed_name);
  }

  async function names(client: SdkClient): Promise<string[]> {
    return (await client.listTools())
      .map((tool) => tool.name)
      .filter((name) => name.startsWith('kandev_e2e_'))
      .sort();
  }

  async function changes(client: SdkClient, count: number, what: string): Promise<void> {
    await eventually(async () => client.listChanged() >= count, 5000, what);
  }

  it('two views over both MCP eras, HTTP and stdio: one list_changed where a change lands, none elsewhere, tools/list exactly the view', async () => {
    const seats = await Promise.all(SEATS.map((s) => seat(s)));
    const [wideHttp, wideStdio, narrowHttp, narrowStdio] = seats as [SdkClient, SdkClient, SdkClient, SdkClient];
    const wide = [wideHttp, wideStdio];
    const narrow = [narrowHttp, narrowStdio];
    // The stdio agentctls link on their own: wait until each lists its view.
    for (const client of wide) await eventually(async () => (await names(client)).length === 3, 5000, 'the wide view');
    for (const client of narrow) await eventually(async () => (await names(client)).length === 2, 5000, 'the narrow view');
    expect(await names(wideHttp)).toEqual([OTHER, SCOPED, SCOPED_PEEK]);
    expect(await names(narrowHttp)).toEqual([SCOPED, SCOPED_PEEK]);
    const before = seats.map((client) => client.listChanged());

    // e2e.other leaves ws-a; the narrow profile never included it.
    expect((await world.api('PUT', '/api/v1/plugins/e2e.other/scope', { workspaces: ['ws-b'], disabled_tools: {} })).status).toBe(200);
    for (const [i, client] of wide.entries()) await changes(client, before[i]! + 1, `${SEATS[i]!.name}: the scope change`);
    for (const client of wide) expect(await names(client)).toEqual(await view('ws-a', 'default'));
    expect(await view('ws-a', 'default')).toEqual([SCOPED, SCOPED_PEEK]);

    // The narrow profile takes e2e.other in, which ws-b has: only the narrow sessions change.
    expect((await world.api('PUT', '/api/v1/profiles/narrow', { include: ['e2e.other', 'e2e.scoped'] })).status).toBe(200);
    for (const [i, client] of narrow.entries()) await changes(client, before[i + 2]! + 1, `${SEATS[i + 2]!.name}: the profile change`);
    for (const client of narrow) expect(await names(client)).toEqual([OTHER, SCOPED, SCOPED_PEEK]);
    expect(await view('ws-b', 'narrow')).toEqual([OTHER, SCOPED, SCOPED_PEEK]);

    // A change in ws-a only: each wide session's next list_changed comes after anything the profile change could have sent it.
    const scope = { workspaces: '*', disabled_tools: { 'ws-a': ['peek'] } };
    expect((await world.api('PUT', '/api/v1/plugins/e2e.scoped/scope', scope)).status).toBe(200);
    for (const [i, client] of wide.entries()) await changes(client, before[i]! + 2, `${SEATS[i]!.name}: the second scope change`);
    for (const client of wide) expect(await names(client)).toEqual([SCOPED]);

    // A content change every view shows: the narrow sessions' next one proves they got nothing from the ws-a change.
    expect((await world.api('POST', '/api/v1/plugins/e2e.scoped/disable')).status).toBe(200);
    for (const [i, client] of narrow.entries()) await changes(client, before[i + 2]! + 2, `${SEATS[i + 2]!.name}: the disable`);
    for (const [i, client] of wide.entries()) await changes(client, before[i]! + 3, `${SEATS[i]!.name}: the disable`);
    expect(seats.map((client, i) => client.listChanged() - before[i]!)).toEqual([3, 3, 2, 2]);
    expect(await names(narrowStdio)).toEqual([OTHER]);
    expect(await names(wideStdio)).toEqual([]);
  });
});
