import type { JsonObject } from '../../src/domain/json';
import { catalogTool, hangingInvoke, snapshotOf, waitUntil } from '../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from './agentctl-harness';
import { CLIENT_KINDS, connectSdkClient, EXPECTED_REVISION, type SdkClient } from './sdk-clients';

const ADD_TAG = 'kandev_acme_tools_add_tag';
const REMOVE_TAG = 'kandev_acme_tools_remove_tag';
const addTag = catalogTool('acme.tools', 'add_tag', {
  title: 'Add tag',
  input_schema: { type: 'object', properties: { value: { type: 'string', pattern: '^[a-z]+$' } }, required: ['value'], $comment: 'kept verbatim' },
  output_schema: { type: 'object', properties: { value: { type: 'string' } } },
  annotations: { read_only_hint: false, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
});
const removeTag = catalogTool('acme.tools', 'remove_tag');
const officeOnly = catalogTool('office.tools', 'elsewhere', { surfaces: ['office-task'] });

/** Every kind of MCP content block, with the optional fields a client must get as they are. */
const CONTENT: JsonObject[] = [
  { type: 'text', text: 'a chart' },
  { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', annotations: { audience: ['user'], priority: 0.5 } },
  { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
  { type: 'resource_link', uri: 'file:///tmp/report.txt', name: 'report.txt', mimeType: 'text/plain', _meta: { 'acme/kind': 'report' } },
  { type: 'resource', resource: { uri: 'mem://notes/1', mimeType: 'text/plain', text: 'note one' } },
];

/** Lets anything already sent arrive before asserting that nothing else came. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe.each(CLIENT_KINDS)('MCP over HTTP, official client %s', (kind) => {
  let harness: AgentctlHarness;
  let client: SdkClient;
  beforeEach(async () => {
    harness = await AgentctlHarness.start({ launchSnapshot: snapshotOf([addTag], 1) });
    harness.backend.backend.catalog = snapshotOf([addTag], 1);
    harness.backend.backend.onInvoke = async (request) => ({
      invocationId: 'i-1',
      text: JSON.stringify(request.arguments),
      structuredContent: request.arguments,
      isError: false,
    });
    await harness.linked();
    client = await connectSdkClient(kind, { http: harness.mcpUrl, token: MCP_TOKEN });
  });
  afterEach(async () => {
    await client.close().catch(() => undefined);
    await harness.close();
  });

  it('negotiates its revision and lists the tools in the §5 shape, schemas verbatim', async () => {
    expect(client.revision()).toBe(EXPECTED_REVISION[kind]);
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['get_task_context', ADD_TAG]);
    expect(tools[1]).toEqual({
      name: ADD_TAG,
      title: 'Add tag',
      description: 'The add_tag tool',
      inputSchema: addTag.input_schema,
      outputSchema: addTag.output_schema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: { 'toolport/plugin_id': 'acme.tools', 'toolport/plugin_version': '1.0.0' },
    });
  });

  it('calls a plugin tool and the built-in, and gets the same error texts', async () => {
    await client.listTools();
    expect(await client.callTool(ADD_TAG, { value: 'urgent' })).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: '{"value":"urgent"}' }],
      structuredContent: { value: 'urgent' },
    });
    expect((await client.callTool('get_task_context')).structuredContent).toEqual({
      task_id: 'task-1',
      session_id: 'session-1',
      workspace_id: 'ws-1',
      surface: 'kanban-task',
    });
    expect(await client.callTool(ADD_TAG, { value: 42 })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: `[INVALID_ARGUMENTS] ${ADD_TAG}: /value must be string` }],
    });
    const unknown = (await client.callTool('kandev_nope_run').catch((error: unknown) => error)) as { code?: number; message: string };
    expect(unknown.code).toBe(-32602);
    // One "MCP error -32602:" at most (the v1 client adds it), never two.
    expect(unknown.message).toMatch(/^(MCP error -32602: )?Unknown tool: kandev_nope_run$/);
  });

  it("passes a plugin's content blocks to the agent verbatim, in order, with its structured content", async () => {
    harness.backend.backend.onInvoke = async () => ({
      invocationId: 'i-2',
      text: 'a chart',
      structuredContent: { value: 'x' },
      isError: false,
      content: CONTENT,
    });
    await client.listTools();
    const { content, structuredContent, isError } = await client.callTool(ADD_TAG, { value: 'chart' });
    expect({ content, structuredContent, isError }).toEqual({ content: CONTENT, structuredContent: { value: 'x' }, isError: false });
  });

  it('passes content blocks on a tool error result too', async () => {
    harness.backend.backend.onInvoke = async () => ({
      invocationId: 'i-3',
      text: 'failed',
      structuredContent: null,
      isError: true,
      content: CONTENT.slice(0, 2),
    });
    await client.listTools();
    const { content, structuredContent, isError } = await client.callTool(ADD_TAG, { value: 'chart' });
    expect({ content, structuredContent, isError }).toEqual({ content: CONTENT.slice(0, 2), structuredContent: undefined, isError: true });
  });

  it('hears exactly one list_changed per effective change, none otherwise, and never lists a removed tool after it', async () => {
    await client.listTools();
    await client.callTool('get_task_context');
    const steps: Array<[string, unknown, number]> = [
      ['enable', snapshotOf([addTag, removeTag], 2), 1],
      ['stale', snapshotOf([addTag], 2), 1],
      ['unchanged', snapshotOf([addTag, removeTag], 3), 1],
      ['other surface', snapshotOf([addTag, removeTag, officeOnly], 4), 1],
      ['disable', snapshotOf([addTag], 5), 2],
    ];
    for (const [step, snapshot, expected] of steps) {
      expect((await harness.put(snapshot)).status).toBe(200);
      if (expected !== client.listChanged()) await waitUntil(() => client.listChanged() === expected, 2000, `list_changed after ${step}`);
      else await settle();
      expect([step, client.listChanged()]).toEqual([step, expected]);
      if (step === 'enable') expect((await client.listTools()).map((tool) => tool.name)).toContain(REMOVE_TAG);
    }
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['get_task_context', ADD_TAG]);
    await settle();
    expect(client.listChanged()).toBe(2);
  });

  it('cancels the backend call within 1 s when the client aborts it', async () => {
    harness.backend.backend.onInvoke = hangingInvoke;
    await client.listTools();
    const abort = new AbortController();
    const call = client.callTool(ADD_TAG, { value: 'x' }, abort.signal).catch((error: unknown) => error);
    await waitUntil(() => harness.backend.backend.invokes.length === 1, 2000, 'the invoke at the backend');
    const started = Date.now();
    abort.abort();
    await waitUntil(() => harness.backend.backend.cancelled.length === 1, 1000, 'the cancel frame');
    expect(Date.now() - started).toBeLessThan(1000);
    await call;
    expect(harness.backend.backend.cancelled).toEqual(harness.backend.backend.invokes);
  });

  it('refuses a wrong bearer token', async () => {
    await expect(connectSdkClient(kind, { http: harness.mcpUrl, token: 'wrong-token' })).rejects.toThrow();
    expect(harness.logger.text()).not.toContain('wrong-token');
  });
});
