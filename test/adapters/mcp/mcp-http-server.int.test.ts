import { request as httpRequest } from 'node:http';
import { TEST_IDENTITY, catalogTool, snapshotOf, waitUntil } from '../../support/test-backend';
import { AgentctlHarness, CONTROL_TOKEN, MCP_TOKEN } from '../../agentctl/agentctl-harness';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function mcpHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${MCP_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
}

/** A raw request, so the Host header can be anything. */
function rawStatus(url: string, headers: Record<string, string>, body?: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: body ? 'POST' : 'GET', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('McpHttpServer', () => {
  let harness: AgentctlHarness;
  afterEach(async () => {
    await harness.close();
  });

  describe('guards', () => {
    beforeEach(async () => {
      harness = await AgentctlHarness.start({ options: { allowedOrigin: 'https://agent.example' } });
    });

    it('answers 401 without the MCP bearer token, or with a wrong one', async () => {
      expect((await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders({ authorization: '' }), body: INITIALIZE })).status).toBe(401);
      expect((await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders({ authorization: 'Bearer nope' }), body: INITIALIZE })).status).toBe(401);
      expect(
        (await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders({ authorization: `Bearer ${CONTROL_TOKEN}` }), body: INITIALIZE })).status,
      ).toBe(401);
      expect((await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders(), body: INITIALIZE })).status).toBe(200);
    });

    it('answers 403 to a foreign Origin and accepts same-host and --allowed-origin ones', async () => {
      const port = new URL(harness.mcpUrl).port;
      const statusWith = async (origin: string) => (await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders({ origin }), body: INITIALIZE })).status;
      expect(await statusWith('https://evil.example')).toBe(403);
      expect(await statusWith(`http://127.0.0.1:${Number(port) + 1}`)).toBe(403);
      expect(await statusWith(`http://localhost:${port}`)).toBe(200);
      expect(await statusWith('https://agent.example')).toBe(200);
    });

    it('answers 403 to a Host that is not this loopback server (DNS rebinding)', async () => {
      const port = new URL(harness.mcpUrl).port;
      expect(await rawStatus(harness.mcpUrl, { ...mcpHeaders(), host: `evil.example:${port}` }, INITIALIZE)).toBe(403);
      expect(await rawStatus(harness.mcpUrl, { ...mcpHeaders(), host: `127.0.0.1:1` }, INITIALIZE)).toBe(403);
      expect(await rawStatus(harness.mcpUrl, { ...mcpHeaders(), host: `localhost:${port}` }, INITIALIZE)).toBe(200);
    });

    it('answers 404 to an unknown MCP session and 400 to a request without one', async () => {
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect((await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders({ 'mcp-session-id': 'nope' }), body: list })).status).toBe(404);
      expect((await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders(), body: list })).status).toBe(400);
    });

    it('serves /healthz', async () => {
      const response = await fetch(`${harness.agentctl.controlUrl}/healthz`);
      expect(await response.json()).toEqual({ status: 'ok' });
    });
  });

  describe('2025 session answers', () => {
    beforeEach(async () => {
      harness = await AgentctlHarness.start();
    });

    /** The content types of a `tools/list` and a `tools/call` answer in a session whose `initialize` declared `capabilities`. */
    async function answerTypes(capabilities: object): Promise<Array<string | null>> {
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw', version: '1' } },
      });
      const opened = await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders(), body: init });
      const session = opened.headers.get('mcp-session-id')!;
      await opened.text();
      const headers = mcpHeaders({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' });
      await (await fetch(harness.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
      const types: Array<string | null> = [];
      for (const [id, method, params] of [
        [2, 'tools/list', {}],
        [3, 'tools/call', { name: 'get_task_context', arguments: {} }],
      ] as const) {
        const answered = await fetch(harness.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
        await answered.text();
        types.push(answered.headers.get('content-type'));
      }
      return types;
    }

    it('are single JSON bodies, except the calls of a marked tool in a session whose client declared elicitation, which are streams (docs/approvals.md)', async () => {
      await harness.linked();
      expect(await answerTypes({ elicitation: {} })).toEqual([expect.stringMatching(/^application\/json/), expect.stringMatching(/^application\/json/)]);
      await harness.backend.links.sendMarks(new Map([[TEST_IDENTITY.session_id, ['get_task_context']]]), 2000);
      expect(await answerTypes({})).toEqual([expect.stringMatching(/^application\/json/), expect.stringMatching(/^application\/json/)]);
      expect(await answerTypes({ elicitation: {} })).toEqual([expect.stringMatching(/^application\/json/), expect.stringMatching(/^text\/event-stream/)]);
      await harness.backend.links.sendMarks(new Map([[TEST_IDENTITY.session_id, []]]), 2000);
      expect(await answerTypes({ elicitation: {} })).toEqual([expect.stringMatching(/^application\/json/), expect.stringMatching(/^application\/json/)]);
    });
  });

  describe('a call of an unmarked tool that a client rule holds anyway', () => {
    beforeEach(async () => {
      harness = await AgentctlHarness.start();
    });

    it('is answered as JSON and its client is not asked: the backend hears unsupported, so an operator decides (docs/approvals.md)', async () => {
      await harness.linked();
      const answers: string[] = [];
      harness.backend.backend.onInvoke = async (request, _signal, _onHold, askClient) => {
        answers.push(
          askClient ? await askClient({ tool: harness.backend.backend.catalog.tools[0]!.exposed_name, pluginId: 'acme.tools', timeoutMs: 5000 }) : 'no asker',
        );
        return { invocationId: `inv-${request.localName}`, text: 'ran', structuredContent: null, isError: false };
      };
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '1' } },
      });
      const opened = await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders(), body: init });
      const session = opened.headers.get('mcp-session-id')!;
      await opened.text();
      const headers = mcpHeaders({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' });
      await (await fetch(harness.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
      const name = harness.backend.backend.catalog.tools[0]!.exposed_name;
      const called = await fetch(harness.mcpUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {} } }),
      });
      expect(called.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await called.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe('ran');
      expect(answers).toEqual(['unsupported']);
    });
  });

  describe('control API', () => {
    beforeEach(async () => {
      harness = await AgentctlHarness.start({ launchSnapshot: snapshotOf([catalogTool('acme.tools', 'add_tag')], 3) });
    });

    it('needs the control token', async () => {
      expect((await harness.put(snapshotOf([], 4), 'wrong')).status).toBe(401);
      expect((await harness.put(snapshotOf([], 4), MCP_TOKEN)).status).toBe(401);
    });

    it('answers 400 with the §9 error body for a malformed snapshot and keeps what it holds, even when also stale', async () => {
      const bad = { ...snapshotOf([catalogTool('acme.tools', 'add_tag', { exposed_name: 'kandev_wrong_name' })], 1), generation: 'nope' };
      const answer = await harness.put(bad);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('BAD_REQUEST');
      expect(typeof answer.body.error.message).toBe('string');
      expect(answer.body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: 'generation' }), expect.objectContaining({ path: expect.stringContaining('exposed_name') })]),
      );
      const notJson = await fetch(`${harness.agentctl.controlUrl}/api/v1/mcp/plugin-tools`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${CONTROL_TOKEN}`, 'content-type': 'application/json' },
        body: '{"generation":',
      });
      expect(notJson.status).toBe(400);
      expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
      expect(await harness.put(snapshotOf([], 4))).toEqual({ status: 200, body: { outcome: 'applied', generation: '000000000001-aaaaaaaa', revision: 4 } });
    });

    it('answers stale with the applied generation and revision for an older snapshot', async () => {
      expect(await harness.put(snapshotOf([], 2))).toEqual({ status: 200, body: { outcome: 'stale', generation: '000000000001-aaaaaaaa', revision: 3 } });
      expect(await harness.put(snapshotOf([], 9, '000000000000-ffffffff'))).toMatchObject({ body: { outcome: 'stale', revision: 3 } });
    });

    it('never moves the agentctl to a generation its link did not deliver: stale, nothing stored', async () => {
      expect(await harness.put(snapshotOf([], 1, '000000000002-00000000'))).toEqual({
        status: 200,
        body: { outcome: 'stale', generation: '000000000001-aaaaaaaa', revision: 3 },
      });
      expect(await harness.put(snapshotOf([], 4))).toMatchObject({ body: { outcome: 'applied', generation: '000000000001-aaaaaaaa', revision: 4 } });
    });
  });

  it('answers a 2025-era tools/call as an SSE stream only when it carries a progressToken (docs/approvals.md)', async () => {
    harness = await AgentctlHarness.start({ launchSnapshot: snapshotOf([catalogTool('acme.tools', 'add_tag')], 3) });
    const init = await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders(), body: INITIALIZE });
    const headers = mcpHeaders({ 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' });
    await init.text();
    await (await fetch(harness.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const call = async (id: number, meta?: Record<string, unknown>) => {
      const params = { name: 'get_task_context', arguments: {}, ...(meta ? { _meta: meta } : {}) };
      const answer = await fetch(harness.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) });
      return { type: answer.headers.get('content-type') ?? '', body: await answer.text() };
    };
    const plain = await call(2);
    expect(plain.type).toMatch(/^application\/json/);
    expect(JSON.parse(plain.body)).toMatchObject({ id: 2, result: { content: [{ type: 'text' }] } });
    const streamed = await call(3, { progressToken: 'p-3' });
    expect(streamed.type).toMatch(/^text\/event-stream/);
    expect(streamed.body).toMatch(/^data: \{"result":.*"id":3\}$/m);
    const again = await call(4);
    expect(again.type).toMatch(/^application\/json/);
  });

  it('closes an MCP session left idle with nothing open', async () => {
    harness = await AgentctlHarness.start({ options: { idleSessionMs: 200 } });
    const init = await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders(), body: INITIALIZE });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const statusNow = async () =>
      (await fetch(harness.mcpUrl, { method: 'POST', headers: mcpHeaders({ 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }), body: list }))
        .status;
    expect(await statusNow()).toBe(200);
    await waitUntil(() => harness.logger.withMessage('closing idle MCP session').length === 1, 4000, 'the idle session to be closed');
    expect(await statusNow()).toBe(404);
  });
});
