import { randomBytes } from 'node:crypto';
import { authenticateRawLink, linkUrl, openRawLink } from '../../support/clients/raw-link';
import { rawRequest } from '../../support/clients/raw-request';
import type { RunningAgentctl } from '../../support/processes/agentctl-process';
import type { RunningBackend } from '../../support/processes/backend-process';
import { BackendWorld } from '../../support/processes/backend-world';

interface Route {
  method: string;
  path: string;
  body?: string;
}

const BACKEND_ROUTES: Route[] = [
  { method: 'GET', path: '/api/v1/plugins' },
  { method: 'GET', path: '/api/v1/plugins/some.plugin' },
  { method: 'POST', path: '/api/v1/plugins', body: '{"path":"/tmp"}' },
  { method: 'PUT', path: '/api/v1/plugins/some.plugin', body: '{"path":"/tmp"}' },
  { method: 'POST', path: '/api/v1/plugins/some.plugin/enable' },
  { method: 'POST', path: '/api/v1/plugins/some.plugin/disable' },
  { method: 'DELETE', path: '/api/v1/plugins/some.plugin' },
  { method: 'GET', path: '/api/v1/catalog' },
  { method: 'POST', path: '/api/v1/sessions', body: '{"task_id":"t","workspace_id":"w","surface":"kanban-task"}' },
  { method: 'GET', path: '/api/v1/sessions' },
  { method: 'DELETE', path: '/api/v1/sessions/some-session' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/api/v1/agentctl/ws' },
  { method: 'GET', path: '/api/v1/no-such-route' },
  { method: 'POST', path: '/api/v1/sessions', body: '{broken json' },
];

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

const AGENTCTL_ROUTES: Route[] = [
  { method: 'POST', path: '/mcp', body: INITIALIZE },
  { method: 'GET', path: '/mcp' },
  { method: 'DELETE', path: '/mcp' },
  { method: 'PUT', path: '/api/v1/mcp/plugin-tools', body: '{"generation":"000000000001-00000000","revision":99,"tools":[]}' },
  { method: 'PUT', path: '/api/v1/mcp/plugin-tools', body: '{broken json' },
];

/**
 * Authorization headers that must not open an endpoint whose token is `right` (undefined: no
 * header at all): near misses of `right`, and every other token Toolport hands out.
 */
function badAuthorizations(right: string, others: string[]): Array<string | undefined> {
  return [
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Bearer wrong-token',
    `Basic ${Buffer.from(`admin:${right}`).toString('base64')}`,
    right,
    `Bearer ${right}x`,
    `Bearer ${right.slice(0, -1)}`,
    `Bearer ${right.toUpperCase()}`,
    `Bearer ${right},${right}`,
    ...others.map((token) => `Bearer ${token}`),
  ];
}

/** Wrong or missing tokens at every endpoint of the backend and of an agentctl. */
describe('chaos: wrong or missing tokens', () => {
  const world = new BackendWorld([], { prefix: 'toolport-chaos-tokens-' });
  let backend: RunningBackend | undefined;
  let agentctl: RunningAgentctl | undefined;
  let sessionToken: string;
  let stoppedSessionToken: string;
  const controlToken = randomBytes(24).toString('base64url');
  const mcpToken = randomBytes(24).toString('base64url');

  beforeAll(async () => {
    backend = await world.start();
    const session = await world.session('kanban-task', 't1', false);
    sessionToken = session.agentctl!.session_token;
    const stopped = await world.session('kanban-task', 't2', false);
    stoppedSessionToken = stopped.agentctl!.session_token;
    expect((await world.api('DELETE', `/api/v1/sessions/${stopped.session_id}`)).status).toBe(204);
    agentctl = await world.startAgentctl({
      backendUrl: session.agentctl!.backend_url,
      tokens: { session: sessionToken, mcp: mcpToken, control: controlToken },
    });
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function probe(base: string, routes: Route[], authorizations: Array<string | undefined>): Promise<Map<string, string[]>> {
    const bodies = new Map<string, string[]>();
    for (const route of routes) {
      for (const authorization of authorizations) {
        const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        if (authorization !== undefined) headers.authorization = authorization;
        const answer = await rawRequest(`${base}${route.path}`, { method: route.method, headers, body: route.body });
        const label = `${route.method} ${route.path} with ${authorization === undefined ? 'no header' : JSON.stringify(authorization.slice(0, 12))}`;
        expect({ label, status: answer.status }).toEqual({ label, status: 401 });
        bodies.set(answer.text, [...(bodies.get(answer.text) ?? []), label]);
      }
    }
    return bodies;
  }

  it('answers 401 with one identical §9 body on every backend route, /metrics included', async () => {
    const bodies = await probe(backend!.url, BACKEND_ROUTES, badAuthorizations(backend!.token, [sessionToken, mcpToken, controlToken]));
    expect([...bodies.keys()]).toHaveLength(1);
    expect(JSON.parse([...bodies.keys()][0])).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), details: null } });
    // The right token opens the same routes (so the refusals above were about the token).
    const ok = await rawRequest(`${backend!.url}/api/v1/plugins`, { method: 'GET', headers: { authorization: `Bearer ${backend!.token}` } });
    expect(ok.status).toBe(200);
    const metrics = await rawRequest(`${backend!.url}/metrics`, { method: 'GET', headers: { authorization: `Bearer ${backend!.token}` } });
    expect(metrics.status).toBe(200);
  }, 30_000);

  it('answers 401 with one identical body on every agentctl endpoint, each token only where it belongs', async () => {
    const wrongForMcp = badAuthorizations(mcpToken, [controlToken, backend!.token, sessionToken]);
    const wrongForControl = badAuthorizations(controlToken, [mcpToken, backend!.token, sessionToken]);
    const mcpBodies = await probe(
      agentctl!.controlUrl!,
      AGENTCTL_ROUTES.filter((r) => r.path === '/mcp'),
      wrongForMcp,
    );
    const controlBodies = await probe(
      agentctl!.controlUrl!,
      AGENTCTL_ROUTES.filter((r) => r.path !== '/mcp'),
      wrongForControl,
    );
    const all = new Set([...mcpBodies.keys(), ...controlBodies.keys()]);
    expect([...all]).toHaveLength(1);
    // The right tokens work where they belong.
    const push = await rawRequest(`${agentctl!.controlUrl}/api/v1/mcp/plugin-tools`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${controlToken}`, 'content-type': 'application/json' },
      body: '{"generation":"000000000000-00000000","revision":1,"tools":[]}',
    });
    expect(push.status).toBe(200);
    const init = await rawRequest(agentctl!.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: INITIALIZE,
    });
    expect(init.status).toBe(200);
  }, 30_000);

  it('refuses a WebSocket link that cannot prove a live session token: UNAUTHORIZED, then the close', async () => {
    const right = sessionToken;
    const wrongTokens = ['', 'wrong-token', `${right}x`, right.slice(0, -1), right.toUpperCase(), backend!.token, mcpToken, controlToken, stoppedSessionToken];
    const outcomes = new Set<string>();
    for (const token of wrongTokens) {
      const link = await openRawLink(linkUrl(backend!.url));
      const refused = await authenticateRawLink(link, token);
      const outcome = { frame: refused, close: (await link.closed).code };
      expect({ token: token.slice(0, 8), ...outcome }).toMatchObject({
        token: token.slice(0, 8),
        frame: { type: 'error', payload: { code: 'UNAUTHORIZED' } },
        close: 4401,
      });
      outcomes.add(JSON.stringify({ ...outcome, frame: { ...refused, id: undefined } }));
    }
    expect(outcomes.size).toBe(1);
    // A bearer header, even with the right token, opens nothing: the link authenticates in its frames.
    const withHeader = await openRawLink(linkUrl(backend!.url), { headers: { authorization: `Bearer ${right}` } });
    expect(await withHeader.request('1', 'agentctl.hello', {})).toMatchObject({ type: 'error', payload: { code: 'UNAUTHORIZED' } });
    expect((await withHeader.closed).code).toBe(4401);
    // The right token links.
    const link = await openRawLink(linkUrl(backend!.url));
    expect(await authenticateRawLink(link, right)).toBeUndefined();
    link.socket.close();
    await link.closed;
  }, 30_000);
});
