import { join } from 'node:path';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(30_000);

const RAW_SOURCE = `require('./test/fixtures/plugins/status-plugin.js');`;
const tool = (name: string) => ({ name, description: `The ${name} tool.`, surfaces: ['kanban-task'], input_schema: { type: 'object' } });

interface Snapshot {
  generation: string;
  revision: number;
  tools: Array<{ local_name: string }>;
}

/** Issue 26: a plugin's scope and the profiles, set through the real CLI and read back as a session's effective tools. */
describe('toolport plugin scope, profile and catalog views', () => {
  // The raw fixture listens on TCP, which a sandboxed plugin cannot offer the host.
  const world = new BackendWorld(['--plugin-sandbox', 'off'], { prefix: 'toolport-scopes-' });
  const at = () => ['--data-dir', world.dataDir];
  const run = (args: string[]) => runToolport([...args, ...at()]);
  const json = async <T>(args: string[]): Promise<T> => {
    const answer = await run([...args, '--json']);
    expect(answer).toMatchObject({ code: 0 });
    return JSON.parse(answer.stdout) as T;
  };
  const view = (workspace: string, profile: string) => json<Snapshot>(['catalog', '--workspace', workspace, '--profile', profile, '--surface', 'kanban-task']);

  beforeAll(async () => {
    await world.start();
    await world.install(
      writePluginPackage(join(world.root, 'probe'), {
        manifest: {
          api_version: 1,
          id: 'scopes.probe',
          version: '1.0.0',
          config_schema: {
            type: 'object',
            properties: { project: { type: 'string' }, api_key: { type: 'string', writeOnly: true } },
            additionalProperties: false,
          },
          agent_tools: [tool('echo'), tool('refuse'), tool('break')],
        },
        source: RAW_SOURCE,
      }),
    );
  }, 60_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('sets a scope and a profile, and each view of the catalog shows what its sessions would', async () => {
    expect(await run(['plugin', 'scope', 'scopes.probe'])).toMatchObject({ code: 0, stdout: 'scopes.probe serves every workspace\nDisabled tools: none\n' });
    const before = await json<Snapshot>(['catalog']);

    const scoped = await run(['plugin', 'scope', 'scopes.probe', '--workspaces', 'ws-2,ws-1', '--disable-tool', 'ws-2:break']);
    expect(scoped).toMatchObject({ code: 0, stdout: 'scopes.probe serves workspaces ws-1, ws-2\nDisabled tools:\n  ws-2: break\n' });
    expect(await json(['plugin', 'scope', 'scopes.probe'])).toEqual({ workspaces: ['ws-1', 'ws-2'], disabled_tools: { 'ws-2': ['break'] } });

    const unknown = await run(['plugin', 'scope', 'scopes.probe', '--disable-tool', 'ws-1:nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('toolport: SCOPE_INVALID:');
    expect(unknown.stderr).toContain('  disabled_tools["ws-1"][0]: "nope" is not a tool the plugin declares\n');

    expect(await json(['profile', 'set', 'no-refuse', '--include', '*', '--exclude', '*_refuse'])).toEqual({
      name: 'no-refuse',
      include: ['*'],
      exclude: ['*_refuse'],
    });
    const listed = await run(['profile', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n').map((line) => line.split(/\s{2,}/)[0])).toEqual(['NAME', 'default', 'no-refuse', '']);

    const whole = await json<Snapshot>(['catalog']);
    // One revision for the scope, one for the profile; the refused PUT none.
    expect(whole.revision).toBe(before.revision + 2);
    const names = (snapshot: Snapshot) => snapshot.tools.map((t) => t.local_name).sort();
    expect(names(whole)).toEqual(['break', 'echo', 'refuse']);
    const narrow = await view('ws-2', 'no-refuse');
    expect({ generation: narrow.generation, revision: narrow.revision }).toEqual({ generation: whole.generation, revision: whole.revision });
    expect(names(narrow)).toEqual(['echo']);
    expect(names(await view('ws-1', 'no-refuse'))).toEqual(['break', 'echo']);
    expect(names(await view('ws-2', 'default'))).toEqual(['echo', 'refuse']);
    expect(names(await view('ws-3', 'default'))).toEqual([]);

    expect(await run(['catalog', '--workspace', 'ws-2'])).toMatchObject({ code: 2 });
    expect(await run(['catalog', '--workspace', 'ws-2', '--profile', 'ghost', '--surface', 'kanban-task'])).toMatchObject({ code: 1 });
  });

  it('starts sessions with profiles, refuses an unknown one, and deletes a profile only once no session uses it', async () => {
    await run(['profile', 'set', 'ops', '--include', 'scopes.probe']);
    const session = await json<{ session_id: string; profile: string }>([
      'session',
      'start',
      '--task',
      'T',
      '--workspace',
      'ws-1',
      '--surface',
      'kanban-task',
      '--profile',
      'ops',
      '--no-launch',
    ]);
    expect(session.profile).toBe('ops');
    const sessions = await json<Array<{ session_id: string; profile: string }>>(['session', 'list']);
    expect(sessions.find((s) => s.session_id === session.session_id)?.profile).toBe('ops');

    const ghost = await run(['session', 'start', '--task', 'T', '--workspace', 'ws-1', '--surface', 'kanban-task', '--profile', 'ghost', '--no-launch']);
    expect(ghost).toMatchObject({ code: 1, stderr: 'toolport: UNKNOWN_PROFILE: no profile "ghost"\n' });

    const inUse = await run(['profile', 'delete', 'ops']);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toContain(`PROFILE_IN_USE`);
    expect(inUse.stderr).toContain(session.session_id);
    expect(await run(['profile', 'delete', 'default'])).toMatchObject({ code: 1, stderr: expect.stringContaining('PROFILE_PROTECTED') });

    expect(await run(['session', 'stop', session.session_id])).toMatchObject({ code: 0 });
    expect(await run(['profile', 'delete', 'ops'])).toMatchObject({ code: 0, stdout: 'Deleted profile ops\n' });
    expect(await run(['profile', 'get', 'ops'])).toMatchObject({ code: 1, stderr: 'toolport: NOT_FOUND: no profile "ops"\n' });
  });

  it('calls a tool through a short-lived session with a profile', async () => {
    const called = await run(['tool', 'call', 'kandev_scopes_probe_echo', '--args', '{}', '--workspace', 'ws-2', '--profile', 'no-refuse']);
    expect(called).toMatchObject({ code: 0, stdout: 'echoed\n' });
    const last = (await json<Array<{ profile: string; workspace_id: string }>>(['session', 'list'])).at(-1);
    expect(last).toMatchObject({ profile: 'no-refuse', workspace_id: 'ws-2' });
    expect(await run(['tool', 'call', 'kandev_scopes_probe_echo', '--profile', 'ghost'])).toMatchObject({ code: 1 });
  });

  it("sets a workspace's overrides with config set --workspace, keeping its other keys, its secret masked and the instance's untouched", async () => {
    expect(await run(['plugin', 'config', 'set', 'scopes.probe', 'project=SHARED'])).toMatchObject({ code: 0 });
    const secret = 'ws-1-key-0042';
    const keyed = await runToolport(['plugin', 'config', 'set', 'scopes.probe', '--workspace', 'ws-1', 'api_key=-', ...at()], { input: `${secret}\n` });
    expect(keyed).toMatchObject({ code: 0 });
    expect(await run(['plugin', 'config', 'set', 'scopes.probe', '--workspace', 'ws-1', 'project=ONE'])).toMatchObject({ code: 0 });

    const ws1 = await run(['plugin', 'config', 'get', 'scopes.probe', '--workspace', 'ws-1']);
    expect(ws1).toMatchObject({ code: 0, stdout: 'api_key=********\nproject=ONE\n' });
    expect(ws1.stdout).not.toContain(secret);
    expect(await run(['plugin', 'config', 'get', 'scopes.probe'])).toMatchObject({ code: 0, stdout: 'project=SHARED\n' });
    expect(await run(['plugin', 'config', 'get', 'scopes.probe', '--workspace', 'ws-2'])).toMatchObject({ code: 0, stdout: 'No configuration set.\n' });
  });

  it("unsets keys of a workspace's overrides with config unset --workspace: the others and the instance's stay, a last key removes the workspace", async () => {
    const workspaces = async () => ((await world.api('GET', '/api/v1/plugins/scopes.probe/config/workspaces')).body as { workspaces: string[] }).workspaces;
    expect(await workspaces()).toContain('ws-1');
    expect(await run(['plugin', 'config', 'unset', 'scopes.probe', '--workspace', 'ws-1', 'project'])).toMatchObject({
      code: 0,
      stdout: 'scopes.probe is active\n',
    });
    // The secret, sent back masked, keeps its stored value.
    expect(await run(['plugin', 'config', 'get', 'scopes.probe', '--workspace', 'ws-1'])).toMatchObject({ code: 0, stdout: 'api_key=********\n' });
    expect(await run(['plugin', 'config', 'get', 'scopes.probe'])).toMatchObject({ code: 0, stdout: 'project=SHARED\n' });
    expect(await run(['plugin', 'config', 'unset', 'scopes.probe', '--workspace', 'ws-1', 'api_key', 'project'])).toMatchObject({ code: 0 });
    expect(await run(['plugin', 'config', 'get', 'scopes.probe', '--workspace', 'ws-1'])).toMatchObject({ code: 0, stdout: 'No configuration set.\n' });
    expect(await workspaces()).not.toContain('ws-1');
    expect(await run(['plugin', 'config', 'unset', 'scopes.probe', '--workspace', 'ws-1', 'project=ONE'])).toMatchObject({ code: 2 });
  });

  it('unsets an instance key with config unset', async () => {
    expect(await run(['plugin', 'config', 'unset', 'scopes.probe', 'project'])).toMatchObject({ code: 0 });
    expect(await run(['plugin', 'config', 'get', 'scopes.probe'])).toMatchObject({ code: 0, stdout: 'No configuration set.\n' });
  });
});
