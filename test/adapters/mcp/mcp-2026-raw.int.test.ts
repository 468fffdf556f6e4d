import { request as httpRequest } from 'node:http';
import { catalogTool, hangingInvoke, snapshotOf, waitUntil } from '../../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from '../../agentctl/agentctl-harness';

const REVISION = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const ADD_TAG = 'kandev_acme_tools_add_tag';

interface RawAnswer {
  status: number;
  headers: Headers;
  body: any;
}

function headersFor(method: string, name?: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    authorization: `Bearer ${MCP_TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
    ...extra,
  };
}

/** A stateless 2026-07-28 request: no initialize, no session id, everything in `params._meta`. */
function rpc(id: number, method: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } };
}

/** Reads an SSE stream's `data:` messages as they come. */
class SseReader {
  readonly messages: any[] = [];
  private buffer = '';
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly abort: AbortController,
  ) {
    void this.pump();
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await this.reader.read();
        if (done) return;
        this.buffer += Buffer.from(value).toString('utf8');
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          const event = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n');
          if (data) this.messages.push(JSON.parse(data));
        }
      }
    } catch {
      // aborted
    }
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe('MCP 2026-07-28 over raw HTTP', () => {
  let harness: AgentctlHarness;
  const streams: SseReader[] = [];

  async function post(body: unknown, headers: Record<string, string>): Promise<RawAnswer> {
    const response = await fetch(harness.mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  }

  async function listen(id: number): Promise<SseReader> {
    const abort = new AbortController();
    const response = await fetch(harness.mcpUrl, {
      method: 'POST',
      headers: headersFor('subscriptions/listen'),
      body: JSON.stringify(rpc(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const stream = new SseReader(response.body!.getReader(), abort);
    streams.push(stream);
    await waitUntil(() => stream.messages.length > 0, 2000, 'the acknowledgement');
    return stream;
  }

  const changes = (stream: SseReader) => stream.messages.filter((m) => m.method === 'notifications/tools/list_changed');

  beforeEach(async () => {
    harness = await AgentctlHarness.start({
      launchSnapshot: snapshotOf([catalogTool('acme.tools', 'add_tag')], 1),
      options: { allowedOrigin: 'https://agent.example' },
    });
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await harness.close();
  });

  it('answers server/discover with the revision, the tools capability and the server identity', async () => {
    const answer = await post(rpc(1, 'server/discover'), headersFor('server/discover'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(answer.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: {
        supportedVersions: [REVISION],
        capabilities: { tools: { listChanged: true } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolport-agentctl', version: '0.0.0-test' } },
      },
    });
  });

  it('answers tools/list without a session: the §5 listing in one page, with private cache hints', async () => {
    const answer = await post(rpc(2, 'tools/list'), headersFor('tools/list'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    const { result } = answer.body;
    expect(result.tools.map((tool: { name: string }) => tool.name)).toEqual(['get_task_context', ADD_TAG]);
    expect(result.tools[1]).toEqual({
      name: ADD_TAG,
      description: 'The add_tag tool',
      inputSchema: { type: 'object', properties: { value: { type: 'string' } } },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      _meta: { 'toolport/plugin_id': 'acme.tools', 'toolport/plugin_version': '1.0.0' },
    });
    expect(result.nextCursor).toBeUndefined();
    expect(result.cacheScope).toBe('private');
    expect(result.ttlMs).toBeGreaterThan(0);
  });

  it('answers tools/call, the same texts as 2025, and an unknown tool with one unprefixed -32602', async () => {
    await harness.linked();
    const call = await post(rpc(3, 'tools/call', { name: ADD_TAG, arguments: { value: 'x' } }), headersFor('tools/call', ADD_TAG));
    expect(call.status).toBe(200);
    expect(call.body.result).toMatchObject({ isError: false, content: [{ type: 'text', text: '{"value":"x"}' }] });
    const invalid = await post(rpc(4, 'tools/call', { name: ADD_TAG, arguments: { value: 1 } }), headersFor('tools/call', ADD_TAG));
    expect(invalid.body.result).toMatchObject({ isError: true, content: [{ type: 'text', text: `[INVALID_ARGUMENTS] ${ADD_TAG}: /value must be string` }] });
    const unknown = await post(rpc(5, 'tools/call', { name: 'kandev_nope_run', arguments: {} }), headersFor('tools/call', 'kandev_nope_run'));
    expect(unknown.body).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'Unknown tool: kandev_nope_run' } });
  });

  it('answers 400 when Mcp-Method or Mcp-Name disagree with the body, or Mcp-Method is missing', async () => {
    const wrongName = await post(rpc(6, 'tools/call', { name: ADD_TAG, arguments: {} }), headersFor('tools/call', 'kandev_other_tool'));
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.error.message).toContain('Mcp-Name');
    const wrongMethod = await post(rpc(7, 'tools/list'), headersFor('tools/call'));
    expect(wrongMethod.status).toBe(400);
    expect(wrongMethod.body.error.message).toContain('Mcp-Method');
    const { 'mcp-method': _dropped, ...withoutMethod } = headersFor('tools/list');
    expect((await post(rpc(8, 'tools/list'), withoutMethod)).status).toBe(400);
    expect(harness.backend.backend.invokes).toEqual([]);
  });

  it('checks the bearer token, Host and Origin on every stateless request', async () => {
    const list = rpc(9, 'tools/list');
    expect((await post(list, headersFor('tools/list', undefined, { authorization: 'Bearer nope' }))).status).toBe(401);
    expect((await post(list, headersFor('tools/list', undefined, { origin: 'https://evil.example' }))).status).toBe(403);
    expect((await post(list, headersFor('tools/list', undefined, { origin: 'https://agent.example' }))).status).toBe(200);
    const port = new URL(harness.mcpUrl).port;
    const hostStatus = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...headersFor('tools/list'), host: `evil.example:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(list));
    });
    expect(hostStatus).toBe(403);
  });

  it('refuses a revision it does not serve, naming the ones it does', async () => {
    const body = { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } };
    const answer = await post(body, headersFor('tools/list', undefined, { 'mcp-protocol-version': '2099-01-01' }));
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body.error)).toContain(REVISION);
  });

  it('acknowledges subscriptions/listen, then sends exactly one list_changed per applied to each open stream', async () => {
    await harness.linked();
    const [first, second] = [await listen(20), await listen(21)];
    expect(first.messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true } } });
    const both = () => [changes(first).length, changes(second).length];

    expect((await harness.put(snapshotOf([catalogTool('acme.tools', 'add_tag'), catalogTool('acme.tools', 'remove_tag')], 2))).body.outcome).toBe('applied');
    await waitUntil(() => both().every((n) => n === 1), 2000, 'one list_changed on each stream');
    expect(changes(first)[0].params._meta['io.modelcontextprotocol/subscriptionId']).toBe(20);
    expect((await harness.put(snapshotOf([catalogTool('acme.tools', 'add_tag'), catalogTool('acme.tools', 'remove_tag')], 3))).body.outcome).toBe('unchanged');
    expect((await harness.put(snapshotOf([catalogTool('acme.tools', 'add_tag')], 2))).body.outcome).toBe('stale');
    await settle();
    expect(both()).toEqual([1, 1]);

    // A stream opened after a change is a new one: no catch-up, only what follows.
    const late = await listen(22);
    await settle();
    expect(changes(late)).toHaveLength(0);
    expect((await harness.put(snapshotOf([catalogTool('acme.tools', 'add_tag')], 4))).body.outcome).toBe('applied');
    await waitUntil(() => changes(late).length === 1 && both().every((n) => n === 2), 2000, 'one more on every stream');
    await settle();
    expect([...both(), changes(late).length]).toEqual([2, 2, 1]);
  });

  it.each([
    ['a notifications/cancelled naming it', 'notification'],
    ['the client dropping its HTTP request', 'drop'],
  ] as const)('cancels a stateless tools/call all the way to the backend within 1 s on %s', async (_name, how) => {
    await harness.linked();
    harness.backend.backend.onInvoke = hangingInvoke;
    const abort = new AbortController();
    const call = fetch(harness.mcpUrl, {
      method: 'POST',
      headers: headersFor('tools/call', ADD_TAG),
      body: JSON.stringify(rpc(30, 'tools/call', { name: ADD_TAG, arguments: {} })),
      signal: abort.signal,
    }).catch((error: unknown) => error);
    await waitUntil(() => harness.backend.backend.invokes.length === 1, 2000, 'the invoke at the backend');
    const started = Date.now();
    if (how === 'drop') abort.abort();
    else {
      const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 30, reason: 'user', _meta: META } };
      expect((await post(cancelled, headersFor('notifications/cancelled'))).status).toBe(202);
    }
    await waitUntil(() => harness.backend.backend.cancelled.length === 1, 1000, 'the cancel frame');
    expect(Date.now() - started).toBeLessThan(1000);
    abort.abort();
    await call;
  });
});
