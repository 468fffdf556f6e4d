import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { authenticateRawLink, linkUrl, openRawLink } from '../../support/clients/raw-link';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { processesMentioning } from '../../support/processes/process-table';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(20_000);

/** The §9 operator API of a real `toolport serve`: its guard, sessions started elsewhere, its data dir lock. */
describe('backend: operator API', () => {
  const world = new BackendWorld(['--plugin-start-timeout-ms', '10000']);

  beforeAll(async () => {
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.api', ['add_tag']));
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  const ENDPOINTS: Array<[string, string]> = [
    ['GET', '/metrics'],
    ['GET', '/api/v1/plugins'],
    ['POST', '/api/v1/plugins'],
    ['GET', '/api/v1/plugins/e2e.api'],
    ['PUT', '/api/v1/plugins/e2e.api'],
    ['DELETE', '/api/v1/plugins/e2e.api'],
    ['POST', '/api/v1/plugins/e2e.api/enable'],
    ['POST', '/api/v1/plugins/e2e.api/disable'],
    ['GET', '/api/v1/plugins/e2e.api/logs'],
    ['GET', '/api/v1/catalog'],
    ['GET', '/api/v1/sessions'],
    ['POST', '/api/v1/sessions'],
    ['DELETE', '/api/v1/sessions/some-session'],
    ['GET', '/api/v1/agentctl/ws'],
    ['GET', '/api/v1/no-such-thing'],
    ['PATCH', '/api/v1/plugins'],
  ];

  it('answers 401 with one and the same body on every endpoint, without a token or with a wrong one, before reading the body', async () => {
    const answers = new Set<string>();
    const headerSets: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer wrong-token' },
      { authorization: `Bearer ${world.backend.token}x` },
      { authorization: `Basic ${Buffer.from(`admin:${world.backend.token}`).toString('base64')}` },
      { authorization: world.backend.token },
    ];
    for (const [method, path] of ENDPOINTS) {
      for (const headers of headerSets) {
        const withBody = method === 'POST' || method === 'PUT';
        const response = await fetch(new URL(path, world.backend.url), {
          method,
          headers: { ...headers, ...(withBody ? { 'content-type': 'application/json' } : {}) },
          // Not even valid JSON: a refusal must come before any parsing.
          body: withBody ? '{"path": ' : undefined,
        });
        expect([method, path, response.status]).toEqual([method, path, 401]);
        answers.add(`${response.headers.get('content-type')}|${await response.text()}`);
      }
    }
    // A WebSocket upgrade request is still a request: the same guard answers it.
    for (const [, path] of ENDPOINTS.filter(([method, path]) => method === 'GET' && path !== '/api/v1/agentctl/ws')) {
      for (const headers of headerSets) {
        const refused = await upgradeRequest(path, headers);
        expect([path, refused.status]).toEqual([path, 401]);
        answers.add(`${refused.contentType}|${refused.body}`);
      }
    }
    expect([...answers]).toEqual([
      `application/json; charset=utf-8|${JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'missing or invalid bearer token', details: null } })}`,
    ]);
    // Nothing was changed by any of those requests.
    expect((await world.api('GET', '/api/v1/plugins/e2e.api')).body.status).toBe('active');
    expect((await world.api('GET', '/api/v1/sessions')).body).toEqual([]);
    expect(await fetch(new URL('/healthz', world.backend.url)).then((r) => r.json())).toEqual({ status: 'ok' });
  });

  /** A raw HTTP/1.1 GET asking for a WebSocket upgrade (fetch cannot send one). */
  function upgradeRequest(path: string, headers: Record<string, string>): Promise<{ status: number; contentType: string; body: string }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(new URL(path, world.backend.url), {
        headers: {
          ...headers,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': randomBytes(16).toString('base64'),
        },
      });
      request.on('upgrade', (_response, socket) => {
        socket.destroy();
        reject(new Error(`${path} upgraded without the admin token`));
      });
      request.on('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type']), body }));
      });
      request.on('error', reject);
      request.end();
    });
  }

  it('answers an upgrade request on an API path like any other request: 404 with the token, the API itself when it routes', async () => {
    const auth = { authorization: `Bearer ${world.backend.token}` };
    const missing = await upgradeRequest('/api/v1/no-such-thing', auth);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).error.code).toBe('NOT_FOUND');
    const plugins = await upgradeRequest('/api/v1/plugins', auth);
    expect(plugins.status).toBe(200);
    expect(JSON.parse(plugins.body).map((p: { id: string }) => p.id)).toEqual(['e2e.api']);
  });

  it('refuses an agentctl link made with the admin token instead of a session token', async () => {
    const link = await openRawLink(linkUrl(world.backend.url));
    expect(await authenticateRawLink(link, world.backend.token)).toMatchObject({ type: 'error', payload: { code: 'UNAUTHORIZED' } });
    expect((await link.closed).code).toBe(4401);
  });

  it('a launch:false session answers what an agentctl started elsewhere needs, and that agentctl serves the bound session', async () => {
    const answer = await world.api('POST', '/api/v1/sessions', { task_id: 'task-remote', workspace_id: 'ws-remote', surface: 'kanban-task', launch: false });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body).sort()).toEqual(['agentctl', 'profile', 'session_id', 'status', 'surface', 'task_id', 'workspace_id']);
    expect(answer.body).toMatchObject({ task_id: 'task-remote', workspace_id: 'ws-remote', surface: 'kanban-task', status: 'starting' });
    expect(answer.body.agentctl).toEqual({ backend_url: world.backend.url, session_token: expect.stringMatching(/.{20,}/) });
    const listed = (await world.api('GET', '/api/v1/sessions')).body as Array<Record<string, unknown>>;
    expect(JSON.stringify(listed)).not.toContain(answer.body.agentctl.session_token);

    const agentctl = await world.startAgentctl({
      backendUrl: answer.body.agentctl.backend_url,
      args: ['--data-dir', world.dataDir],
      tokens: { session: answer.body.agentctl.session_token, mcp: 'operator-chosen-mcp-token', control: 'operator-chosen-control-token' },
    });
    const agent = await world.connect(agentctl.mcpUrl, 'operator-chosen-mcp-token');
    try {
      expect(await agent.toolNames()).toContain('kandev_e2e_api_add_tag');
      const bound = { task_id: 'task-remote', session_id: answer.body.session_id, workspace_id: 'ws-remote', surface: 'kanban-task' };
      expect((await agent.call('get_task_context')).structuredContent).toEqual(bound);
      const result = await agent.call('kandev_e2e_api_add_tag', { tag: 'remote' });
      expect(result.isError).toBeFalsy();
      expect(recordedCalls(world.dataDir, 'e2e.api').at(-1)!.context).toEqual(bound);
      await eventually(
        async () => {
          const sessions = (await world.api('GET', '/api/v1/sessions')).body as Array<{ session_id: string; status: string }>;
          return sessions.find((s) => s.session_id === answer.body.session_id)?.status === 'live';
        },
        5000,
        'the session to be live',
      );

      // Stopped by the operator: its plugin calls are refused and never reach the plugin.
      expect((await world.api('DELETE', `/api/v1/sessions/${answer.body.session_id}`)).status).toBe(204);
      const seen = recordedCalls(world.dataDir, 'e2e.api').length;
      const refused = await agent.call('kandev_e2e_api_add_tag', { tag: 'after-stop' });
      expect(refused.isError).toBe(true);
      expect(resultText(refused)).toMatch(/^\[SESSION_NOT_LIVE\]/);
      expect(recordedCalls(world.dataDir, 'e2e.api')).toHaveLength(seen);
    } finally {
      await agent.close();
    }
  });

  it('a launched session whose agentctl dies shows dead, and its token no longer opens a link', async () => {
    const session = await world.session('office-task', 'task-doomed');
    const pid = await world.agentctlPid(session.session_id);
    process.kill(-pid, 'SIGKILL');
    await eventually(
      async () => {
        const sessions = (await world.api('GET', '/api/v1/sessions')).body as Array<{ session_id: string; status: string }>;
        return sessions.find((s) => s.session_id === session.session_id)?.status === 'dead';
      },
      5000,
      'the session to be dead',
    );
    expect(processesMentioning(world.root).map((p) => p.pid)).not.toContain(pid);
  });

  it('a second serve on the same data dir exits 1 naming the pid that holds it, and the first keeps serving', async () => {
    const { code, stderr } = await runToolport(['serve', '--data-dir', world.dataDir, '--port', '0']);
    expect(code).toBe(1);
    expect(stderr).toContain(`pid ${world.backend.pid}`);
    expect((await world.api('GET', '/api/v1/plugins/e2e.api')).status).toBe(200);
  });
});

describe('backend: settings passed on to the agentctls it launches', () => {
  const world = new BackendWorld(['--tool-prefix', 'acme', '--plugin-start-timeout-ms', '10000']);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('a custom tool prefix names the tools in the catalog, the plugin record and the agent list alike', async () => {
    await world.start();
    const record = await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.prefixed', ['add_tag']));
    expect(record.tools).toEqual(['acme_e2e_prefixed_add_tag']);
    const agent = await world.agent(await world.session('kanban-task'));
    expect(await agent.toolNames()).toContain('acme_e2e_prefixed_add_tag');
    expect((await agent.call('acme_e2e_prefixed_add_tag', { tag: 'p' })).isError).toBeFalsy();
    // A change after launch arrives by push and is accepted under the same prefix.
    await world.install(writeProbePlugin(join(world.root, 'pkg2'), 'e2e.prefixed-two', ['add_tag']));
    await agent.waitForListChanged(1);
    expect(await agent.toolNames()).toContain('acme_e2e_prefixed_two_add_tag');
  });
});
