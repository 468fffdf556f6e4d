import { DEFAULT_SETTINGS } from '../../src/application/settings';
import { runAgentctl } from '../../src/composition/agentctl-main';
import { ToolportError } from '../../src/domain/errors';
import { CapturingLogger } from '../support/capturing-logger';
import { catalogTool, snapshotOf, TestBackendServer, waitUntil } from '../support/test-backend';
import { AgentctlHarness } from './agentctl-harness';

describe('agentctl startup', () => {
  let harness: AgentctlHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('prints exactly one ready line once it listens and holds the launch snapshot', async () => {
    harness = await AgentctlHarness.start();
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

  it('refuses to start without its tokens in the environment', async () => {
    const options = { backendUrl: 'http://127.0.0.1:9', logger: new CapturingLogger(), writeReady: () => undefined };
    await expect(runAgentctl({ ...options, env: { TOOLPORT_MCP_TOKEN: 'm' } }, DEFAULT_SETTINGS)).rejects.toThrow(/TOOLPORT_SESSION_TOKEN/);
    await expect(runAgentctl({ ...options, env: { TOOLPORT_SESSION_TOKEN: 's' } }, DEFAULT_SETTINGS)).rejects.toBeInstanceOf(ToolportError);
  });
});
