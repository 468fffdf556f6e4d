import { AgentctlHarness, MCP_TOKEN } from '../../agentctl/agentctl-harness';

const headers = { authorization: `Bearer ${MCP_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('/mcp body handling', () => {
  let harness: AgentctlHarness;
  beforeAll(async () => {
    harness = await AgentctlHarness.start();
  });
  afterAll(async () => {
    await harness.close();
  });

  async function post(body: string, extra: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const response = await fetch(harness.mcpUrl, { method: 'POST', headers: { ...headers, ...extra }, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    expect(await post('{"jsonrpc":')).toEqual({ status: 400, body: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null } });
  });

  it('answers a body over 8 MiB with 413, before reading it all', async () => {
    const answer = await post(`{"pad":"${'x'.repeat(8 * 1024 * 1024)}"}`);
    expect(answer.status).toBe(413);
    expect(answer.body.error.message).toContain('8 MiB');
  });

  it('answers a POST that is not JSON with 415, and checks the token before anything', async () => {
    expect((await post('hello', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('{"jsonrpc":', { authorization: 'Bearer nope' })).status).toBe(401);
  });
});
