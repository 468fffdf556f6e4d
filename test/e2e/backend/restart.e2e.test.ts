import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { PROBE_TOOLS, recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { processesMentioning } from '../../support/processes/process-table';

jest.setTimeout(45_000);

/** Backend restarts and upgrades with real processes: what survives, what keeps serving. */
describe('backend: restarts and upgrades', () => {
  let world: BackendWorld;

  beforeEach(() => {
    world = new BackendWorld(['--plugin-start-timeout-ms', '10000']);
  });

  afterEach(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('a graceful restart keeps records and sessions (launched ones stopped), plugins come back active, an external agentctl carries on', async () => {
    const first = await world.start();
    const installed = await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.keep', ['add_tag', 'hang']));
    const launched = await world.session('kanban-task');
    const launchedAgent = await world.agent(launched);
    const external = await world.session('kanban-task', 'task-external', false);
    const agentctl = await world.startAgentctl({
      backendUrl: external.agentctl!.backend_url,
      // Its way back to the backend after a restart: backend.json in that data dir.
      args: ['--data-dir', world.dataDir],
      tokens: { session: external.agentctl!.session_token, mcp: 'external-mcp-token', control: 'external-control-token' },
    });
    const externalAgent = await world.connect(agentctl.mcpUrl, 'external-mcp-token');
    expect((await externalAgent.call('kandev_e2e_keep_add_tag', { tag: 'before' })).isError).toBeFalsy();
    const generation = (await world.api('GET', '/api/v1/catalog')).body.generation as string;

    // A call still running does not hold the shutdown past its 10 s bound.
    const pending = launchedAgent.call('kandev_e2e_keep_hang', {}).catch((error: Error) => error);
    await eventually(() => recordedCalls(world.dataDir, 'e2e.keep').some((c) => c.tool === 'hang'), 5000, 'the hang call to start');
    const stopping = Date.now();
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    await pending;
    expect(existsSync(join(world.dataDir, 'backend.json'))).toBe(false);
    // It stopped what it started: only the agentctl started elsewhere outlives a graceful stop.
    expect(processesMentioning(world.root).map((p) => p.pid)).toEqual([agentctl.pid]);

    const second = await world.start();
    // The admin token was made once (mode 0600) and is reused by the next start.
    expect(second.token).toBe(first.token);
    expect(statSync(join(world.dataDir, 'admin.token')).mode & 0o777).toBe(0o600);
    const plugin = (await world.api('GET', '/api/v1/plugins/e2e.keep')).body;
    // The same record, served by the new backend's own process.
    expect(plugin).toEqual({ ...installed, pid: plugin.pid, updated_at: plugin.updated_at });
    expect(plugin.pid).not.toBe(installed.pid);
    expect(plugin.status).toBe('active');
    expect(world.pluginPids('e2e.keep')).toHaveLength(1);
    const sessions = (await world.api('GET', '/api/v1/sessions')).body as Array<{ session_id: string; status: string }>;
    expect(sessions).toHaveLength(2);
    expect(sessions.find((s) => s.session_id === launched.session_id)).toMatchObject({ task_id: launched.task_id, status: 'stopped' });
    expect(sessions.find((s) => s.session_id === external.session_id)).toMatchObject({ task_id: 'task-external' });
    const next = (await world.api('GET', '/api/v1/catalog')).body.generation as string;
    expect(Number(next.slice(0, 12))).toBe(Number(generation.slice(0, 12)) + 1);

    const fresh = await world.agent(await world.session('kanban-task', 'task-after-restart'));
    expect((await fresh.call('kandev_e2e_keep_add_tag', { tag: 'again' })).isError).toBeFalsy();
    // The external agentctl found the new backend through backend.json and calls work again.
    await eventually(
      async () => !(await externalAgent.call('kandev_e2e_keep_add_tag', { tag: 'external-again' })).isError,
      10_000,
      'the external agentctl to reconnect',
    );
    expect(
      recordedCalls(world.dataDir, 'e2e.keep')
        .filter((c) => c.args.tag === 'external-again')
        .map((c) => c.context.session_id),
    ).toEqual([external.session_id]);
  });

  it("a crashed backend's agentctl keeps serving built-ins, refuses plugin calls, and reconnects to the next backend on that data dir", async () => {
    const first = await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.crash-host', ['add_tag', 'hang']));
    const session = await world.session('kanban-task');
    const agent = await world.agent(session);
    const agentctlPid = await world.agentctlPid(session.session_id);
    expect((await agent.call('kandev_e2e_crash_host_add_tag', { tag: 'before' })).isError).toBeFalsy();

    // A call in flight when the backend dies ends at once, and says it may have run.
    const pending = agent.call('kandev_e2e_crash_host_hang', {});
    await eventually(() => recordedCalls(world.dataDir, 'e2e.crash-host').some((c) => c.tool === 'hang'), 5000, 'the hang call to start');
    expect(await first.stop('SIGKILL')).toBeNull();
    const cut = await pending;
    expect(cut.isError).toBe(true);
    expect(resultText(cut)).toMatch(/^\[BACKEND_UNAVAILABLE\].*may have run/);

    expect(() => process.kill(agentctlPid, 0)).not.toThrow();
    const context = await agent.call('get_task_context', {});
    expect(context.structuredContent).toEqual({ task_id: session.task_id, session_id: session.session_id, workspace_id: 'ws-e2e', surface: 'kanban-task' });
    const refused = await agent.call('kandev_e2e_crash_host_add_tag', { tag: 'while-down' });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/^\[BACKEND_UNAVAILABLE\]/);
    // SDK plugins leave by themselves once their host is gone.
    await eventually(() => world.pluginPids('e2e.crash-host').length === 0, 8000, 'the orphaned plugin to exit');

    await world.start();
    const back = await eventually(
      async () => {
        const result = await agent.call('kandev_e2e_crash_host_add_tag', { tag: 'after' });
        return result.isError ? undefined : result;
      },
      10_000,
      'plugin calls through the next backend',
    );
    expect(back.structuredContent).toMatchObject({ tag: 'after', context: { session_id: session.session_id } });
    expect(await world.agentctlPid(session.session_id)).toBe(agentctlPid);
    // Nothing was re-sent: each call reached the plugin once (the orphaned plugin may have noted the hang's abort).
    const reached = recordedCalls(world.dataDir, 'e2e.crash-host').filter((c) => c.tool !== 'hang_aborted');
    expect(reached.map((c) => c.args.tag ?? c.tool)).toEqual(['before', 'hang', 'after']);

    // The next backend also pushes its catalog changes to that agentctl.
    const heard = agent.listChanged();
    await world.install(writeProbePlugin(join(world.root, 'pkg-new'), 'e2e.newcomer', ['peek']));
    await agent.waitForListChanged(heard + 1);
    expect(await agent.toolNames()).toContain('kandev_e2e_newcomer_peek');

    // The next backend owns that agentctl now: its graceful stop stops it too.
    const code = await world.backend.stop('SIGTERM');
    if (code !== 0) process.stderr.write(world.backend.stderr().split('\n').slice(-30).join('\n'));
    expect(code).toBe(0);
    expect(processesMentioning(world.root)).toEqual([]);
  });

  it("a failed upgrade keeps the old version's process and tools; a good one swaps the tools in one list_changed", async () => {
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'v1'), 'e2e.up', ['add_tag']));
    const agent = await world.agent(await world.session('kanban-task'));
    const [oldPid] = world.pluginPids('e2e.up');
    const revision = (await world.api('GET', '/api/v1/catalog')).body.revision as number;

    const broken = writePluginPackage(join(world.root, 'v2'), {
      manifest: { api_version: 1, id: 'e2e.up', version: '2.0.0', agent_tools: [PROBE_TOOLS.add_tag, PROBE_TOOLS.peek] },
      source: "process.stderr.write('v2 cannot start: missing config\\n'); process.exit(1);",
    });
    const failed = await world.api('PUT', '/api/v1/plugins/e2e.up', { path: broken });
    expect(failed.status).toBe(422);
    expect(failed.body.error.code).toBe('PLUGIN_START_FAILED');
    expect(failed.body.error.details.stderr.join('\n')).toContain('v2 cannot start: missing config');

    expect(world.pluginPids('e2e.up')).toEqual([oldPid]);
    const record = (await world.api('GET', '/api/v1/plugins/e2e.up')).body;
    expect(record).toMatchObject({ version: '1.0.0', status: 'active', tools: ['kandev_e2e_up_add_tag'] });
    expect((await world.api('GET', '/api/v1/catalog')).body.revision).toBe(revision);
    const names = await agent.toolNames();
    expect(names).toContain('kandev_e2e_up_add_tag');
    expect(names).not.toContain('kandev_e2e_up_peek');
    expect((await agent.call('kandev_e2e_up_add_tag', { tag: 'still-v1' })).isError).toBeFalsy();
    // The call was recorded, and the old process is still the only one (a sandboxed plugin records
    // the pid it has in its own PID namespace, so the host pid is compared through the tree).
    expect(recordedCalls(world.dataDir, 'e2e.up').length).toBeGreaterThan(0);
    expect(world.pluginPids('e2e.up')).toEqual([oldPid]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agent.listChanged()).toBe(0);

    const good = writeProbePlugin(join(world.root, 'v3'), 'e2e.up', ['peek'], '3.0.0');
    const upgraded = await world.api('PUT', '/api/v1/plugins/e2e.up', { path: good });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toMatchObject({ version: '3.0.0', status: 'active', tools: ['kandev_e2e_up_peek'] });
    await agent.waitForListChanged(1);
    expect((await world.api('GET', '/api/v1/catalog')).body.revision).toBe(revision + 1);
    const after = await agent.toolNames();
    expect(after).toContain('kandev_e2e_up_peek');
    expect(after).not.toContain('kandev_e2e_up_add_tag');
    await eventually(() => !world.pluginPids('e2e.up').includes(oldPid), 5000, 'the old version to stop');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agent.listChanged()).toBe(1);
  });
});
