import { McpHttpServer } from '../../../src/adapters/mcp/mcp-http-server';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { createAgentctlContainer } from '../../../src/composition/agentctl-container';
import { CapturingLogger } from '../../support/capturing-logger';
import { snapshotOf, TEST_IDENTITY } from '../../support/test-backend';
import { connectSdkClient } from '../../agentctl/sdk-clients';

const MCP_TOKEN = 'mcp-token';
const CONTROL_TOKEN = 'control-token';

async function serve(serveControlApi: boolean | undefined): Promise<{ http: McpHttpServer; baseUrl: string; mcpUrl: string }> {
  const container = createAgentctlContainer({
    settings: DEFAULT_SETTINGS,
    logger: new CapturingLogger(),
    version: '0.0.0-test',
    launchedAs: TEST_IDENTITY,
    backend: { url: 'http://127.0.0.1:1', sessionToken: 'unused' },
    http: { host: '127.0.0.1', port: 0, serveMcp: true, mcpToken: MCP_TOKEN, controlToken: CONTROL_TOKEN, allowedOrigins: [], serveControlApi },
    stdio: false,
    firstSnapshotWaitMs: 100,
    invokeMarginMs: 0,
  });
  const http = container.get(McpHttpServer);
  return { http, ...(await http.listen()) };
}

function putSnapshot(baseUrl: string): Promise<Response> {
  return fetch(`${baseUrl}/api/v1/mcp/plugin-tools`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${CONTROL_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(snapshotOf([], 1)),
  });
}

describe('McpHttpServer serveControlApi', () => {
  let http: McpHttpServer | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it('serves the control API by default', async () => {
    const served = await serve(undefined);
    http = served.http;
    expect((await putSnapshot(served.baseUrl)).status).toBe(200);
  });

  it('serves no control API when off, and MCP of both eras as before', async () => {
    const served = await serve(false);
    http = served.http;
    const answer = await putSnapshot(served.baseUrl);
    expect(answer.status).toBe(404);
    await answer.text();
    for (const kind of ['v1', 'v2 pinned 2026-07-28'] as const) {
      const client = await connectSdkClient(kind, { http: served.mcpUrl, token: MCP_TOKEN });
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(['get_task_context']);
      await client.close();
    }
  });
});
