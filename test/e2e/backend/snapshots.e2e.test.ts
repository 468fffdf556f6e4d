import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';

interface Snapshot {
  generation: string;
  revision: number;
  tools: unknown[];
}

jest.setTimeout(20_000);

/** Catalog pushes as agentctls take them: ordering, fail-closed calls, and one frozen agentctl. */
describe('backend: catalog snapshots reaching agentctls', () => {
  const world = new BackendWorld(['--plugin-start-timeout-ms', '10000', '--plugin-max-inflight', '2']);

  beforeAll(async () => {
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg-snap'), 'e2e.snap', ['add_tag']));
    await world.install(writeProbePlugin(join(world.root, 'pkg-fan'), 'e2e.fan', ['peek']));
    await world.install(writeProbePlugin(join(world.root, 'pkg-busy'), 'e2e.busy', ['hang']));
    expect((await world.api('POST', '/api/v1/plugins/e2e.fan/disable')).body.status).toBe('disabled');
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function openSession(): Promise<{ session: StartedSession; agent: McpAgent }> {
    const session = await world.session('kanban-task', `task-${Math.random().toString(16).slice(2, 8)}`);
    return { session, agent: await world.agent(session) };
  }

  /**
   * A session whose agentctl an operator started with a control API, and a way to push
   * snapshots to it by hand, as the operator would (launched agentctls serve none).
   */
  async function openHandPushedSession(): Promise<{
    session: StartedSession;
    agent: McpAgent;
    push(snapshot: Snapshot): Promise<{ status: number; body: any }>;
  }> {
    const session = await world.session('kanban-task', `task-${Math.random().toString(16).slice(2, 8)}`, false);
    const tokens = { session: session.agentctl!.session_token, mcp: `mcp-${session.session_id}`, control: `control-${session.session_id}` };
    const agentctl = await world.startAgentctl({ backendUrl: session.agentctl!.backend_url, tokens });
    const agent = await world.connect(agentctl.mcpUrl, tokens.mcp);
    // The link delivered its first snapshot: a hand-pushed one of that generation is taken then.
    await eventually(async () => (await agent.toolNames()).length > 1, 5000, 'the first snapshot over the link');
    const push = async (snapshot: Snapshot) => {
      const response = await fetch(new URL('/api/v1/mcp/plugin-tools', agentctl.controlUrl!), {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.control}`, 'content-type': 'application/json' },
        body: JSON.stringify(snapshot),
      });
      return { status: response.status, body: await response.json() };
    };
    return { session, agent, push };
  }

  it('an older snapshot pushed after a newer one is ignored (stale), and a client that ignored list_changed cannot call the removed tool', async () => {
    const { session, agent, push } = await openHandPushedSession();
    expect(await agent.toolNames()).toContain('kandev_e2e_snap_add_tag');
    const current = (await world.api<Snapshot>('GET', '/api/v1/catalog')).body;

    const newer = await push({ generation: current.generation, revision: current.revision + 10, tools: [] });
    expect(newer).toEqual({ status: 200, body: { outcome: 'applied', generation: current.generation, revision: current.revision + 10 } });
    await agent.waitForListChanged(1);

    const older = await push({ ...current, revision: current.revision + 5 });
    expect(older).toEqual({ status: 200, body: { outcome: 'stale', generation: current.generation, revision: current.revision + 10 } });
    expect(await agent.toolNames()).not.toContain('kandev_e2e_snap_add_tag');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agent.listChanged()).toBe(1);

    // This agent never re-listed after the notification; its call still fails closed.
    await expect(agent.call('kandev_e2e_snap_add_tag', { tag: 'gone' })).rejects.toThrow(/-32602|not found|unknown/i);
    expect(recordedCalls(world.dataDir, 'e2e.snap')).toEqual([]);
    expect((await world.api('DELETE', `/api/v1/sessions/${session.session_id}`)).status).toBe(204);
  });

  it('a tool an agentctl still lists after the backend disabled its plugin fails closed at the backend', async () => {
    const { session, agent, push } = await openHandPushedSession();
    const withFan = (await world.api<Snapshot>('GET', '/api/v1/catalog')).body;
    const heard = agent.listChanged();
    expect((await world.api('POST', '/api/v1/plugins/e2e.snap/disable')).body.status).toBe('disabled');
    try {
      // The disable's own push lands first: racing ahead of it, the same tools again would be `unchanged`.
      await agent.waitForListChanged(heard + 1);
      // Make the agentctl believe in e2e.snap again, as a lagging push would.
      const pushed = await push({ ...withFan, revision: withFan.revision + 50 });
      expect(pushed.body.outcome).toBe('applied');
      expect(await agent.toolNames()).toContain('kandev_e2e_snap_add_tag');
      const result = await agent.call('kandev_e2e_snap_add_tag', { tag: 'ghost' });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/^\[PLUGIN_NOT_ACTIVE\]/);
      expect(recordedCalls(world.dataDir, 'e2e.snap')).toEqual([]);
    } finally {
      await world.api('POST', '/api/v1/plugins/e2e.snap/enable');
      await world.api('DELETE', `/api/v1/sessions/${session.session_id}`);
    }
  });

  it('an agent cancelling reaches the plugin, the in-flight cap refuses with [PLUGIN_BUSY], disable and uninstall cancel calls in flight', async () => {
    const { session, agent } = await openSession();
    const hang = async () => {
      const before = recordedCalls(world.dataDir, 'e2e.busy').length;
      const pending = agent.call('kandev_e2e_busy_hang', {});
      await eventually(() => recordedCalls(world.dataDir, 'e2e.busy').length > before, 5000, 'the call to reach the plugin');
      // Wrapped, so awaiting hang() does not wait for the call itself.
      return { pending };
    };
    // The agent giving up (MCP notifications/cancelled) cancels the call inside the plugin.
    const giveUp = new AbortController();
    const abandoned = agent.call('kandev_e2e_busy_hang', { n: 0 }, { signal: giveUp.signal }).catch((error: Error) => error);
    await eventually(() => recordedCalls(world.dataDir, 'e2e.busy').some((c) => c.tool === 'hang'), 5000, 'the call to reach the plugin');
    giveUp.abort();
    await abandoned;
    await eventually(() => recordedCalls(world.dataDir, 'e2e.busy').some((c) => c.tool === 'hang_aborted'), 5000, 'the plugin to see the cancellation');

    // Two calls in flight reach the cap (--plugin-max-inflight 2): a third is refused at once.
    const first = await hang();
    let { pending } = await hang();
    const seen = recordedCalls(world.dataDir, 'e2e.busy').length;
    const busy = await agent.call('kandev_e2e_busy_hang', {});
    expect(resultText(busy)).toMatch(/^\[PLUGIN_BUSY\]/);
    expect(recordedCalls(world.dataDir, 'e2e.busy')).toHaveLength(seen);

    let started = Date.now();
    expect((await world.api('POST', '/api/v1/plugins/e2e.busy/disable')).body.status).toBe('disabled');
    let result = await pending;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(resultText(result)).toMatch(/^\[CANCELLED_BY_LIFECYCLE\]/);
    expect(resultText(await first.pending)).toMatch(/^\[CANCELLED_BY_LIFECYCLE\]/);

    expect((await world.api('POST', '/api/v1/plugins/e2e.busy/enable')).body.status).toBe('active');
    await eventually(async () => (await agent.toolNames()).includes('kandev_e2e_busy_hang'), 5000, 'the tool to come back');
    ({ pending } = await hang());
    started = Date.now();
    expect((await world.api('DELETE', '/api/v1/plugins/e2e.busy')).status).toBe(204);
    result = await pending;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(resultText(result)).toMatch(/^\[CANCELLED_BY_LIFECYCLE\]/);
    expect((await world.api('GET', '/api/v1/plugins/e2e.busy')).status).toBe(404);
    expect(world.pluginPids('e2e.busy')).toEqual([]);
    await world.api('DELETE', `/api/v1/sessions/${session.session_id}`);
  });

  it('with one agentctl frozen (SIGSTOP), every other session gets its list_changed within the 2 s push timeout plus 1 s', async () => {
    const opened = await Promise.all([openSession(), openSession(), openSession(), openSession()]);
    const [frozen, ...others] = opened;
    const frozenPid = await world.agentctlPid(frozen.session.session_id);
    world.pause(frozenPid);
    try {
      const enabled = await world.api('POST', '/api/v1/plugins/e2e.fan/enable');
      expect(enabled.body.status).toBe('active');
      const catalogChanged = performance.now();
      await Promise.all(others.map(({ agent }) => agent.waitForListChanged(1, 3000)));
      for (const { agent } of others) {
        expect(agent.listChangedAt[0] - catalogChanged).toBeLessThan(3000);
        expect(await agent.toolNames()).toContain('kandev_e2e_fan_peek');
      }
      expect(frozen.agent.listChanged()).toBe(0);
    } finally {
      world.resume(frozenPid);
    }
    // Once it runs again, the frozen one catches up too (the backend retries it).
    await frozen.agent.waitForListChanged(1, 8000);
    expect(await frozen.agent.toolNames()).toContain('kandev_e2e_fan_peek');
  }, 30_000);
});
