import { request as httpRequest } from 'node:http';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { InvocationError } from '../../src/domain/errors';
import { catalogTool, hangingInvoke, snapshotOf, waitUntil } from '../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from './agentctl-harness';

const ADD_TAG = 'kandev_acme_tools_add_tag';

function textOf(result: unknown): string {
  return (result as { content: Array<{ type: string; text: string }> }).content[0].text;
}

describe('agentctl tool calls', () => {
  let harness: AgentctlHarness;
  beforeEach(async () => {
    harness = await AgentctlHarness.start();
    await harness.linked();
  });
  afterEach(async () => {
    await harness.close();
  });

  it('answers get_task_context with the session identity as structured content', async () => {
    const { client } = await harness.connectClient();
    const listed = await client.listTools();
    const builtIn = listed.tools.find((t) => t.name === 'get_task_context')!;
    expect(builtIn.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(builtIn.outputSchema).toBeDefined();
    const result = await client.callTool({ name: 'get_task_context' });
    expect(result.structuredContent).toEqual({ task_id: 'task-1', session_id: 'session-1', workspace_id: 'ws-1', surface: 'kanban-task' });
    expect(result.isError).toBe(false);
  });

  it('lists plugin tools in the §5 shape and calls one through the backend', async () => {
    const { client } = await harness.connectClient();
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const listed = await client.listTools();
    expect(listed.nextCursor).toBeUndefined();
    expect(listed.tools.find((t) => t.name === ADD_TAG)).toEqual({
      name: ADD_TAG,
      description: 'The add_tag tool',
      inputSchema: { type: 'object', properties: { value: { type: 'string' } } },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      _meta: { 'toolport/plugin_id': 'acme.tools', 'toolport/plugin_version': '1.0.0' },
    });
    const result = await client.callTool({ name: ADD_TAG, arguments: { value: 'urgent' } });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: '{"value":"urgent"}' }] });
    expect(harness.backend.backend.invokes).toEqual([{ pluginId: 'acme.tools', localName: 'add_tag', arguments: { value: 'urgent' } }]);
  });

  it('sends {} for missing arguments and passes a plugin error result through', async () => {
    harness.backend.backend.onInvoke = async () => ({ invocationId: 'i', text: 'tag store is full', structuredContent: { full: true }, isError: true });
    const { client } = await harness.connectClient();
    const result = await client.callTool({ name: ADD_TAG });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'tag store is full' }], structuredContent: { full: true } });
    expect(harness.backend.backend.invokes[0].arguments).toEqual({});
  });

  it('refuses invalid arguments with [INVALID_ARGUMENTS] and sends nothing', async () => {
    const { client } = await harness.connectClient();
    const result = await client.callTool({ name: ADD_TAG, arguments: { value: 42 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`[INVALID_ARGUMENTS] ${ADD_TAG}: /value must be string`);
    expect(harness.backend.backend.invokes).toHaveLength(0);
  });

  it('answers an unknown tool with JSON-RPC -32602', async () => {
    const { client } = await harness.connectClient();
    const error = await client.callTool({ name: 'kandev_nope_run' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });

  it('shows a backend refusal with its stable code', async () => {
    harness.backend.backend.onInvoke = async () => {
      throw new InvocationError('PLUGIN_BUSY', 'acme.tools has 32 calls in flight');
    };
    const { client } = await harness.connectClient();
    const result = await client.callTool({ name: ADD_TAG, arguments: {} });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: '[PLUGIN_BUSY] acme.tools has 32 calls in flight' }] });
  });

  it('logs one debug line per call, without arguments or results', async () => {
    const { client } = await harness.connectClient();
    await client.callTool({ name: ADD_TAG, arguments: { value: 'secret-argument' } });
    const lines = harness.logger.withMessage('plugin tool call');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'debug', fields: { tool: ADD_TAG, plugin_id: 'acme.tools', local_name: 'add_tag', outcome: 'success' } });
    expect(harness.logger.text()).not.toContain('secret-argument');
  });

  it('sends a cancel frame within 1 s when the client aborts its call', async () => {
    harness.backend.backend.onInvoke = hangingInvoke;
    const { client } = await harness.connectClient();
    const abort = new AbortController();
    const call = client.callTool({ name: ADD_TAG, arguments: {} }, undefined, { signal: abort.signal }).catch((e: unknown) => e);
    await waitUntil(() => harness.backend.backend.invokes.length === 1, 2000, 'the invoke at the backend');
    const started = Date.now();
    abort.abort();
    // The backend's real endpoint aborts the call only for a cancel frame naming its request.
    await harness.backend.backend.waitForCancels(1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    await call;
  });

  it('sends a cancel frame within 1 s when the client drops the HTTP connection of its call', async () => {
    harness.backend.backend.onInvoke = hangingInvoke;
    const { transport } = await harness.connectClient();
    const url = new URL(harness.mcpUrl);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: ADD_TAG, arguments: {} } });
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        authorization: `Bearer ${MCP_TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      },
    });
    req.on('error', () => undefined);
    req.end(body);
    await waitUntil(() => harness.backend.backend.invokes.length === 1, 2000, 'the invoke at the backend');
    const started = Date.now();
    req.destroy();
    await harness.backend.backend.waitForCancels(1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers [BACKEND_UNAVAILABLE] within 1 s while the backend is down, then reconnects, pulls and notifies once', async () => {
    const clients = [await harness.connectClient(), await harness.connectClient()];
    await harness.backend.stop();
    const started = Date.now();
    const result = await clients[0].client.callTool({ name: ADD_TAG, arguments: {} });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(textOf(result)).toMatch(/^\[BACKEND_UNAVAILABLE\] /);
    expect(result.isError).toBe(true);
    const context = await clients[0].client.callTool({ name: 'get_task_context' });
    expect(context.isError).toBe(false);

    harness.backend.backend.catalog = snapshotOf([catalogTool('acme.tools', 'add_tag'), catalogTool('acme.tools', 'remove_tag')], 1, '000000000002-bbbbbbbb');
    await harness.backend.restart();
    await waitUntil(() => clients.every((c) => c.listChanged() === 1), 4000, 'one list_changed per session');
    const listed = await clients[1].client.listTools();
    expect(listed.tools.map((t) => t.name)).toContain('kandev_acme_tools_remove_tag');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(clients.map((c) => c.listChanged())).toEqual([1, 1]);
  });
});
