import { randomBytes } from 'node:crypto';
import { openLink } from '../../support/clients/raw-link';
import { rawRequest, type RawAnswer } from '../../support/clients/raw-request';
import type { RunningAgentctl } from '../../support/processes/agentctl-process';
import type { RunningBackend } from '../../support/processes/backend-process';
import { BackendWorld } from '../../support/processes/backend-world';

const MiB = 1024 * 1024;

/** The §9 error body: exactly `{"error": {"code", "message", "details"}}`, with a message a person can read. */
function expectErrorBody(answer: RawAnswer, code: string): void {
  const body = answer.json as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  expect({ text: answer.text, keys: Object.keys(body ?? {}) }).toEqual({ text: answer.text, keys: ['error'] });
  expect(Object.keys(body!.error!).sort()).toEqual(['code', 'details', 'message']);
  expect(body!.error!.code).toBe(code);
  expect(String(body!.error!.message).trim()).not.toBe('');
}

/** Oversized and malformed input at every listener; each process stays up and keeps serving. */
/** The next frame that is not a request of the backend's own (`approval.marks` after a pull, docs/approvals.md). */
async function nextAnswer(link: { next(): Promise<{ type?: string }> }): Promise<unknown> {
  for (;;) {
    const frame = await link.next();
    if (frame.type !== 'request') return frame;
  }
}

describe('chaos: oversized and malformed input', () => {
  const world = new BackendWorld([], { prefix: 'toolport-chaos-hostile-input-' });
  let backend: RunningBackend | undefined;
  let agentctl: RunningAgentctl | undefined;
  let wsUrl: string;
  let probeToken: string;
  const controlToken = randomBytes(24).toString('base64url');
  const mcpToken = randomBytes(24).toString('base64url');

  beforeAll(async () => {
    backend = await world.start();
    const forAgentctl = await world.session('kanban-task', 't1', false);
    const forProbe = await world.session('office-task', 't2', false);
    probeToken = forProbe.agentctl!.session_token;
    wsUrl = `${backend.url.replace(/^http/, 'ws')}/api/v1/agentctl/ws`;
    agentctl = await world.startAgentctl({
      backendUrl: forAgentctl.agentctl!.backend_url,
      tokens: { session: forAgentctl.agentctl!.session_token, mcp: mcpToken, control: controlToken },
    });
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function expectHealthy(): Promise<void> {
    for (const base of [backend!.url, agentctl!.controlUrl]) {
      const health = await rawRequest(`${base}/healthz`, { method: 'GET' });
      expect({ base, status: health.status, json: health.json }).toEqual({ base, status: 200, json: { status: 'ok' } });
    }
  }

  it('answers malformed WebSocket frames with an error frame and keeps the link', async () => {
    const link = await openLink(wsUrl, probeToken);
    try {
      for (const bad of [
        '{not json',
        '[]',
        '"text"',
        '{"id":"1"}',
        '{"id":"2","type":"launch","action":"x"}',
        '{"id":3,"type":"request","action":"mcp.list_plugin_tools"}',
      ]) {
        link.socket.send(bad);
        const frame = await link.next();
        expect({ bad, type: frame.type, code: frame.payload?.code }).toEqual({ bad, type: 'error', code: 'BAD_REQUEST' });
      }
      link.socket.send(Buffer.from([0xff, 0x00, 0x01]), { binary: true });
      expect((await link.next()).payload?.code).toBe('BAD_REQUEST');
      // A bad invoke payload is refused by its request id.
      link.socket.send(JSON.stringify({ id: 'inv', type: 'request', action: 'mcp.invoke_plugin_tool', payload: { plugin_id: 7 } }));
      expect(await link.next()).toMatchObject({ id: 'inv', type: 'error', payload: { code: 'BAD_REQUEST' } });
      // Still a working link.
      link.socket.send(JSON.stringify({ id: 'ok', type: 'request', action: 'mcp.list_plugin_tools', payload: null }));
      expect(await nextAnswer(link)).toMatchObject({ id: 'ok', type: 'response', payload: { tools: [] } });
    } finally {
      link.socket.close();
      await link.closed;
    }
    await expectHealthy();
  });

  it('closes a link with 1009 on a frame over 8 MiB, and takes the next link', async () => {
    const link = await openLink(wsUrl, probeToken);
    const huge = JSON.stringify({ id: 'big', type: 'request', action: 'mcp.invoke_plugin_tool', payload: { pad: 'x'.repeat(8 * MiB) } });
    link.socket.send(huge);
    const closed = await link.closed;
    expect(closed.code).toBe(1009);
    expect(link.frames.filter((frame) => frame.id === 'big')).toEqual([]);
    await expectHealthy();
    const again = await openLink(wsUrl, probeToken);
    again.socket.send(JSON.stringify({ id: 'after', type: 'request', action: 'mcp.list_plugin_tools', payload: null }));
    expect(await nextAnswer(again)).toMatchObject({ id: 'after', type: 'response' });
    again.socket.close();
    await again.closed;
  });

  it('refuses malformed and oversized bodies on the HTTP API with the §9 error body', async () => {
    const auth = { authorization: `Bearer ${backend!.token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const cases: Array<{ what: string; path: string; method: string; headers: Record<string, string>; body: Buffer | string; status: number; code: string }> = [
      { what: 'broken JSON', path: '/api/v1/sessions', method: 'POST', headers: json, body: '{"task_id": "t",', status: 400, code: 'BAD_REQUEST' },
      { what: 'JSON of the wrong shape', path: '/api/v1/sessions', method: 'POST', headers: json, body: '[1,2,3]', status: 400, code: 'BAD_REQUEST' },
      {
        what: 'wrong field types',
        path: '/api/v1/sessions',
        method: 'POST',
        headers: json,
        body: '{"task_id":5,"workspace_id":null,"surface":"kanban-task"}',
        status: 400,
        code: 'BAD_REQUEST',
      },
      {
        what: 'no JSON content type',
        path: '/api/v1/sessions',
        method: 'POST',
        headers: { ...auth, 'content-type': 'text/plain' },
        body: 'hello',
        status: 400,
        code: 'BAD_REQUEST',
      },
      {
        what: 'a path that is not text',
        path: '/api/v1/plugins',
        method: 'POST',
        headers: json,
        body: '{"path": {"$gt": ""}}',
        status: 400,
        code: 'BAD_REQUEST',
      },
      {
        what: 'deeply nested JSON',
        path: '/api/v1/sessions',
        method: 'POST',
        headers: json,
        body: '['.repeat(200_000) + ']'.repeat(200_000),
        status: 400,
        code: 'BAD_REQUEST',
      },
      {
        what: 'a JSON body over 1 MiB',
        path: '/api/v1/sessions',
        method: 'POST',
        headers: json,
        body: `{"task_id":"${'a'.repeat(2 * MiB)}"}`,
        status: 413,
        code: 'BAD_REQUEST',
      },
      {
        what: 'an upgrade body over 1 MiB',
        path: '/api/v1/plugins/x',
        method: 'PUT',
        headers: json,
        body: `{"path":"${'a'.repeat(3 * MiB)}"}`,
        status: 413,
        code: 'BAD_REQUEST',
      },
      {
        what: 'a gzip body that is not a package',
        path: '/api/v1/plugins',
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/gzip' },
        body: randomBytes(64 * 1024),
        status: 422,
        code: 'INVALID_PACKAGE',
      },
    ];
    for (const c of cases) {
      const answer = await rawRequest(`${backend!.url}${c.path}`, { method: c.method, headers: c.headers, body: c.body });
      expect({ what: c.what, status: answer.status }).toEqual({ what: c.what, status: c.status });
      expectErrorBody(answer, c.code);
      await expectHealthy();
    }
    // Nothing was installed or started by any of it.
    expect((await world.api('GET', '/api/v1/plugins')).body).toEqual([]);
    expect((await world.api<unknown[]>('GET', '/api/v1/sessions')).body).toHaveLength(2);
  }, 30_000);

  it('refuses malformed and oversized bodies on the agentctl control API with the §9 error body', async () => {
    const url = `${agentctl!.controlUrl}/api/v1/mcp/plugin-tools`;
    const headers = { authorization: `Bearer ${controlToken}`, 'content-type': 'application/json' };
    const cases: Array<{ what: string; body: Buffer | string; headers?: Record<string, string>; status: number }> = [
      { what: 'broken JSON', body: '{"generation": ', status: 400 },
      { what: 'not an object', body: '[]', status: 400 },
      { what: 'no content type', body: '{}', headers: { authorization: `Bearer ${controlToken}` }, status: 400 },
      { what: 'deeply nested JSON', body: '{"tools":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}', status: 400 },
      { what: 'a body over the 64 MiB limit', body: Buffer.alloc(65 * MiB, 0x20), status: 413 },
    ];
    for (const c of cases) {
      const answer = await rawRequest(url, { method: 'PUT', headers: c.headers ?? headers, body: c.body });
      expect({ what: c.what, status: answer.status }).toEqual({ what: c.what, status: c.status });
      expectErrorBody(answer, 'BAD_REQUEST');
      if (c.status === 413) expect((answer.json as { error: { message: string } }).error.message).toMatch(/too large/i);
      await expectHealthy();
    }
    // And on /mcp: a JSON-RPC parse error, not a crash.
    const mcp = await rawRequest(agentctl!.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0",',
    });
    expect(mcp.status).toBe(400);
    expect(mcp.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    await expectHealthy();
  }, 60_000);
});
