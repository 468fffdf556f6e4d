import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { ADD_TAG_INPUT, ADD_TAG_OUTPUT, recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';

jest.setTimeout(20_000);

/**
 * One backend with real plugin processes and one launched agentctl per surface: what an
 * agent lists, how enable/disable reach a connected client, and what a call carries.
 */
describe('backend: tools an agent sees and calls', () => {
  const world = new BackendWorld(['--tool-timeout-ms', '1000', '--restart-backoff-ms', '200', '--plugin-start-timeout-ms', '10000']);
  const sessions: Record<string, StartedSession> = {};
  const agents: Record<string, McpAgent> = {};

  beforeAll(async () => {
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg-kit'), 'e2e.probe-kit', ['add_tag', 'peek', 'hang']));
    await world.install(writeProbePlugin(join(world.root, 'pkg-crashy'), 'e2e.crashy', ['crash']));
    await world.install(writeProbePlugin(join(world.root, 'pkg-late'), 'e2e.late', ['add_tag']));
    expect((await world.api('POST', '/api/v1/plugins/e2e.late/disable')).body.status).toBe('disabled');
    for (const surface of ['kanban-task', 'office-task', 'configuration', 'external']) {
      sessions[surface] = await world.session(surface);
      agents[surface] = await world.agent(sessions[surface]);
    }
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  const kanban = () => agents['kanban-task'];

  it('lists the derived name, title, verbatim schemas, all four annotations and plugin meta to a kanban agent', async () => {
    const tools = await kanban().tools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'get_task_context',
        'kandev_e2e_probe_kit_add_tag',
        'kandev_e2e_probe_kit_peek',
        'kandev_e2e_probe_kit_hang',
        'kandev_e2e_crashy_crash',
      ]),
    );
    expect(tools.map((t) => t.name)).not.toContain('kandev_e2e_late_add_tag');
    const addTag = tools.find((t) => t.name === 'kandev_e2e_probe_kit_add_tag')!;
    expect(addTag).toEqual({
      name: 'kandev_e2e_probe_kit_add_tag',
      title: 'Add tag',
      description: 'Adds a tag to the current task.',
      inputSchema: ADD_TAG_INPUT,
      outputSchema: ADD_TAG_OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      _meta: { 'toolport/plugin_id': 'e2e.probe-kit', 'toolport/plugin_version': '1.0.0' },
    });
    const peek = tools.find((t) => t.name === 'kandev_e2e_probe_kit_peek')!;
    expect(peek.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true });
  });

  it('keeps a kanban-only tool from office, configuration and external sessions, which cannot call it either', async () => {
    const office = await agents['office-task'].toolNames();
    expect(office).toContain('kandev_e2e_probe_kit_peek');
    expect(office).toContain('get_task_context');
    for (const surface of ['office-task', 'configuration', 'external']) {
      const names = await agents[surface].toolNames();
      expect(names).not.toContain('kandev_e2e_probe_kit_add_tag');
      expect(names).not.toContain('kandev_e2e_crashy_crash');
      await expect(agents[surface].call('kandev_e2e_probe_kit_add_tag', { tag: 'x' })).rejects.toThrow(/-32602|not found|unknown/i);
    }
    for (const surface of ['configuration', 'external']) {
      expect((await agents[surface].toolNames()).filter((n) => n.startsWith('kandev_'))).toEqual([]);
    }
    expect(recordedCalls(world.dataDir, 'e2e.probe-kit').filter((c) => c.tool === 'add_tag')).toEqual([]);
  });

  it('enabling a plugin while clients are connected sends one list_changed and the tool, restarting nothing', async () => {
    const kitPids = world.pluginPids('e2e.probe-kit');
    expect(kitPids).toHaveLength(1);
    const agentctlPid = await world.agentctlPid(sessions['kanban-task'].session_id);
    const before = { kanban: kanban().listChanged(), office: agents['office-task'].listChanged() };

    const enabled = await world.api('POST', '/api/v1/plugins/e2e.late/enable');
    expect(enabled.status).toBe(200);
    expect(enabled.body.status).toBe('active');
    await kanban().waitForListChanged(before.kanban + 1);
    expect(await kanban().toolNames()).toContain('kandev_e2e_late_add_tag');
    const call = await kanban().call('kandev_e2e_late_add_tag', { tag: 'late' });
    expect(call.isError).toBeFalsy();
    // Give a duplicate notification time to show up before counting.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(kanban().listChanged()).toBe(before.kanban + 1);
    // The new tool is kanban-only: the office agent's list did not change, so it heard nothing.
    expect(agents['office-task'].listChanged()).toBe(before.office);
    expect(world.pluginPids('e2e.probe-kit')).toEqual(kitPids);
    expect(await world.agentctlPid(sessions['kanban-task'].session_id)).toBe(agentctlPid);
    expect(world.pluginPids('e2e.late')).toHaveLength(1);
    expect(() => process.kill(agentctlPid, 0)).not.toThrow();
  });

  it('enabling an active plugin or disabling a disabled one changes nothing and signals nothing', async () => {
    const kitPids = world.pluginPids('e2e.probe-kit');
    const revision = (await world.api('GET', '/api/v1/catalog')).body.revision;
    const count = kanban().listChanged();
    expect((await world.api('POST', '/api/v1/plugins/e2e.probe-kit/enable')).body.status).toBe('active');
    expect((await world.api('POST', '/api/v1/plugins/e2e.crashy/enable')).body.status).toBe('active');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(kanban().listChanged()).toBe(count);
    expect(world.pluginPids('e2e.probe-kit')).toEqual(kitPids);
    expect((await world.api('GET', '/api/v1/catalog')).body.revision).toBe(revision);
  });

  it('disabling a plugin before a call fails the call closed without reaching the plugin, and the list drops it', async () => {
    const seen = recordedCalls(world.dataDir, 'e2e.late').length;
    expect(seen).toBeGreaterThan(0);
    const count = kanban().listChanged();
    expect((await world.api('POST', '/api/v1/plugins/e2e.late/disable')).body.status).toBe('disabled');
    await kanban().waitForListChanged(count + 1);
    expect(await kanban().toolNames()).not.toContain('kandev_e2e_late_add_tag');
    await expect(kanban().call('kandev_e2e_late_add_tag', { tag: 'after-disable' })).rejects.toThrow(/-32602|not found|unknown/i);
    expect(recordedCalls(world.dataDir, 'e2e.late')).toHaveLength(seen);
    expect(world.pluginPids('e2e.late')).toEqual([]);
  });

  it('a valid call gives the plugin the exact arguments and the bound context, and the agent text and structured content', async () => {
    const session = sessions['kanban-task'];
    const bound = { task_id: session.task_id, session_id: session.session_id, workspace_id: 'ws-e2e', surface: 'kanban-task' };
    const result = await kanban().call('kandev_e2e_probe_kit_add_tag', { tag: 'urgent', note: 'from e2e' });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('tagged urgent');
    expect(result.structuredContent).toEqual({ tag: 'urgent', context: bound });
    const calls = recordedCalls(world.dataDir, 'e2e.probe-kit').filter((c) => c.tool === 'add_tag');
    expect(calls).toHaveLength(1);
    expect(calls[0].args).toEqual({ tag: 'urgent', note: 'from e2e' });
    expect(calls[0].context).toEqual(bound);
  });

  it('arguments naming another task or session change nothing: the plugin still gets the bound context', async () => {
    const session = sessions['kanban-task'];
    const forged = {
      tag: 'forged',
      task_id: 'someone-elses-task',
      session_id: sessions['office-task'].session_id,
      surface: 'office-task',
      workspace_id: 'ws-other',
    };
    const result = await kanban().call('kandev_e2e_probe_kit_add_tag', forged);
    expect(result.isError).toBeFalsy();
    const last = recordedCalls(world.dataDir, 'e2e.probe-kit')
      .filter((c) => c.tool === 'add_tag')
      .at(-1)!;
    expect(last.args).toEqual(forged);
    expect(last.context).toEqual({ task_id: session.task_id, session_id: session.session_id, workspace_id: 'ws-e2e', surface: 'kanban-task' });
  });

  it('invalid arguments answer [INVALID_ARGUMENTS] and never reach the plugin', async () => {
    const seen = recordedCalls(world.dataDir, 'e2e.probe-kit').length;
    for (const args of [{}, { tag: 5 }, { tag: '' }]) {
      const result = await kanban().call('kandev_e2e_probe_kit_add_tag', args);
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/^\[INVALID_ARGUMENTS\] kandev_e2e_probe_kit_add_tag: /);
    }
    expect(recordedCalls(world.dataDir, 'e2e.probe-kit')).toHaveLength(seen);
  });

  it('a call past the tool timeout gives one [TOOL_TIMEOUT] error and is not retried', async () => {
    const started = Date.now();
    const result = await kanban().call('kandev_e2e_probe_kit_hang', {});
    expect(Date.now() - started).toBeLessThan(4000);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^\[TOOL_TIMEOUT\]/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(recordedCalls(world.dataDir, 'e2e.probe-kit').filter((c) => c.tool === 'hang')).toHaveLength(1);
  });

  it('a plugin crashing mid-call gives one [PLUGIN_CRASHED] error and the call is not retried after its restart', async () => {
    const [firstPid] = world.pluginPids('e2e.crashy');
    const result = await kanban().call('kandev_e2e_crashy_crash', {});
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^\[PLUGIN_CRASHED\]/);
    // Supervision restarts it after the backoff; the crashed call must not run again there.
    await eventually(
      async () => (await world.api('GET', '/api/v1/plugins/e2e.crashy')).body.status === 'active' && world.pluginPids('e2e.crashy')[0] !== firstPid,
      8000,
      'the restart',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // One call, made before the crash (a sandboxed plugin sees its own pid namespace, so its pids are not the host's).
    expect(recordedCalls(world.dataDir, 'e2e.crashy').map((c) => c.tool)).toEqual(['crash']);
  });

  it('counts each call by plugin and outcome on GET /metrics', async () => {
    const metrics = await fetch(new URL('/metrics', world.backend.url), { headers: { authorization: `Bearer ${world.backend.token}` } }).then((r) => r.text());
    expect(metrics).toMatch(
      /toolport_invocations_total\{[^}]*plugin_id="e2e\.probe-kit"[^}]*outcome="success"[^}]*\} 2\b|toolport_invocations_total\{[^}]*outcome="success"[^}]*plugin_id="e2e\.probe-kit"[^}]*\} 2\b/,
    );
    expect(metrics).toMatch(/toolport_invocations_total\{[^}]*plugin_id="e2e\.crashy"[^}]*\} 1\b/);
    expect(metrics).toMatch(/toolport_live_sessions 4\b/);
  });
});
