import { gzipSync } from 'node:zlib';
import { McpHttpServer } from '../../../src/adapters/mcp/mcp-http-server';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { createAgentctlContainer } from '../../../src/composition/agentctl-container';
import { CapturingLogger } from '../../support/capturing-logger';
import { snapshotOf, TEST_IDENTITY } from '../../support/test-backend';

const CONTROL_TOKEN = 'control-token';

/** docs/agentctl.md, "The control API": its answers on node:http, with no framework in front. */
describe('the agentctl control endpoint', () => {
  let http: McpHttpServer;
  let baseUrl: string;
  beforeAll(async () => {
    const container = createAgentctlContainer({
      settings: DEFAULT_SETTINGS,
      logger: new CapturingLogger(),
      version: '0.0.0-test',
      launchedAs: TEST_IDENTITY,
      backend: { url: 'http://127.0.0.1:1', sessionToken: 'unused' },
      http: { host: '127.0.0.1', port: 0, serveMcp: true, mcpToken: 'mcp-token', controlToken: CONTROL_TOKEN, allowedOrigins: [], serveControlApi: true },
      stdio: false,
      firstSnapshotWaitMs: 100,
      invokeMarginMs: 0,
    });
    http = container.get(McpHttpServer);
    ({ baseUrl } = await http.listen());
  });
  afterAll(() => http.close());

  const put = async (body: string | Buffer, headers: Record<string, string>) => {
    const answer = await fetch(`${baseUrl}/api/v1/mcp/plugin-tools`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${CONTROL_TOKEN}`, ...headers },
      body,
    });
    return { status: answer.status, type: answer.headers.get('content-type'), body: (await answer.json()) as { outcome?: string; error?: { code: string } } };
  };

  it('takes a snapshot as JSON, also gzip-encoded', async () => {
    // No link delivered a generation here, so both are `stale`: checked and answered, not refused.
    const plain = await put(JSON.stringify(snapshotOf([], 1)), { 'content-type': 'application/json' });
    const zipped = await put(gzipSync(JSON.stringify(snapshotOf([], 2))), { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip' });
    expect([plain.status, plain.type, plain.body.outcome, zipped.status, zipped.body.outcome]).toEqual([
      200,
      'application/json; charset=utf-8',
      'stale',
      200,
      'stale',
    ]);
  });

  it('refuses a body that is not declared JSON, not JSON, not an object, or in an unknown encoding, with 400 BAD_REQUEST', async () => {
    const refusals = [
      await put('{}', { 'content-type': 'text/plain' }),
      await put('{"generation": ', { 'content-type': 'application/json' }),
      await put('"a string"', { 'content-type': 'application/json' }),
      await put('{}', { 'content-type': 'application/json; charset=latin1' }),
      await put('{}', { 'content-type': 'application/json', 'content-encoding': 'compress' }),
    ];
    expect(refusals.map((answer) => [answer.status, answer.body.error?.code])).toEqual(refusals.map(() => [400, 'BAD_REQUEST']));
  });

  it('answers an unknown path or method 404 with an error body, and GET /healthz ok', async () => {
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['GET', '/api/v1/mcp/plugin-tools'],
      ['POST', '/healthz'],
    ]) {
      const answer = await fetch(`${baseUrl}${path}`, { method });
      expect([method, path, answer.status, ((await answer.json()) as { error: { code: string } }).error.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    const health = await fetch(`${baseUrl}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('checks Host before anything else', async () => {
    const answer = await fetch(`${baseUrl}/healthz`, { headers: { origin: 'http://evil.example' } });
    expect([answer.status, ((await answer.json()) as { error: { code: string } }).error.code]).toEqual([403, 'FORBIDDEN']);
  });
});
