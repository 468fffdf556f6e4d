import { DEFAULT_SETTINGS } from '../../src/application/settings';
import { runAgentctl } from '../../src/composition/agentctl-main';
import { UsageError } from '../../src/adapters/cli/exit-codes';
import { CapturingLogger } from '../support/capturing-logger';
import { catalogTool, snapshotOf, TestBackendServer, waitUntil } from '../support/test-backend';
import { AgentctlHarness } from './agentctl-harness';

describe('agentctl startup', () => {
  let harness: AgentctlHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('prints exactly one ready line once it listens, holds the launch snapshot and has linked', async () => {
    harness = await AgentctlHarness.start();
    const running = harness;
    // Not before the link is up: an agent given the MCP URL may call a plugin tool at once.
    await waitUntil(() => running.readyLines.length > 0, 5000, 'the ready line');
    expect(harness.backend.backend.hellos).toHaveLength(1);
    expect(harness.readyLines).toHaveLength(1);
    const port = new URL(harness.mcpUrl).port;
    expect(harness.readyLines[0]).toBe(
      `${JSON.stringify({ event: 'ready', mcp_url: `http://127.0.0.1:${port}/mcp`, control_url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`,
    );
    await harness.linked();
    expect(harness.backend.backend.hellos).toEqual([{ controlUrl: `http://127.0.0.1:${port}` }]);
    await harness.put(snapshotOf([], 5));
    expect(harness.readyLines).toHaveLength(1);
  });

  it('with a launch snapshot and no backend yet, is not ready until it has linked', async () => {
    const backend = await TestBackendServer.start();
    await backend.stop();
    harness = await AgentctlHarness.start({ backend });
    const { client } = await harness.connectClient();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['get_task_context', 'kandev_acme_tools_add_tag']);
    expect(harness.readyLines).toHaveLength(0);
    await backend.restart();
    const running = harness;
    await waitUntil(() => running.readyLines.length === 1, 5000, 'the ready line');
    await harness.close();
    harness = undefined;
    await backend.stop();
  });

  it('without a launch snapshot, waits for the first pull before it is ready and before it lists', async () => {
    const backend = await TestBackendServer.start();
    backend.backend.catalog = snapshotOf([catalogTool('acme.tools', 'add_tag')], 4);
    await backend.stop();
    harness = await AgentctlHarness.start({ backend, launchSnapshot: null });
    expect(harness.readyLines).toHaveLength(0);
    const { client } = await harness.connectClient();
    const listing = client.listTools();
    await backend.restart();
    const { tools } = await listing;
    expect(tools.map((t) => t.name)).toEqual(['get_task_context', 'kandev_acme_tools_add_tag']);
    expect(harness.readyLines).toHaveLength(1);
    await harness.close();
    harness = undefined;
    await backend.stop();
  });

  it('serves the built-ins alone when no snapshot comes within the bound', async () => {
    const backend = await TestBackendServer.start();
    await backend.stop();
    harness = await AgentctlHarness.start({ backend, launchSnapshot: null, options: { firstSnapshotWaitMs: 200 } });
    const { client } = await harness.connectClient();
    const started = Date.now();
    const { tools } = await client.listTools();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(tools.map((t) => t.name)).toEqual(['get_task_context']);
    const context = await client.callTool({ name: 'get_task_context' });
    expect(context.structuredContent).toMatchObject({ session_id: 'session-1' });
  });

  it('learns its identity from hello when the launch does not name it', async () => {
    harness = await AgentctlHarness.start({ identity: {}, launchSnapshot: null });
    await harness.linked();
    await waitUntil(() => harness!.readyLines.length === 1, 2000, 'the ready line');
    const { client } = await harness.connectClient();
    const context = await client.callTool({ name: 'get_task_context' });
    expect(context.structuredContent).toEqual({ task_id: 'task-1', session_id: 'session-1', workspace_id: 'ws-1', surface: 'kanban-task' });
  });

  it('treats a backend that names another session as fatal', async () => {
    const backend = await TestBackendServer.start();
    backend.backend.identity = { ...backend.backend.identity, session_id: 'someone-else' };
    harness = await AgentctlHarness.start({ backend });
    await waitUntil(() => harness!.fatal.length === 1, 3000, 'the fatal error');
    expect(harness.fatal[0].message).toContain('someone-else');
    await harness.close();
    harness = undefined;
    await backend.stop();
  });

  it('refuses to start without its tokens in the environment, as bad usage naming the variable', async () => {
    const options = { backendUrl: 'http://127.0.0.1:9', logger: new CapturingLogger(), writeReady: () => undefined };
    await expect(runAgentctl({ ...options, env: { TOOLPORT_MCP_TOKEN: 'm' } }, DEFAULT_SETTINGS)).rejects.toThrow(/TOOLPORT_SESSION_TOKEN is not set/);
    const missingMcp = runAgentctl({ ...options, env: { TOOLPORT_SESSION_TOKEN: 's' } }, DEFAULT_SETTINGS);
    await expect(missingMcp).rejects.toBeInstanceOf(UsageError);
    await expect(missingMcp).rejects.toThrow(/TOOLPORT_MCP_TOKEN is not set/);
  });
});
