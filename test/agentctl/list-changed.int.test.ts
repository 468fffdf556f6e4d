import { catalogTool, snapshotOf, waitUntil } from '../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from './agentctl-harness';

const kanbanOnly = (name: string) => catalogTool('acme.tools', name, { surfaces: ['kanban-task'] });
const officeOnly = (name: string) => catalogTool('office.tools', name, { surfaces: ['office-task'] });

/** Lets anything already sent arrive before asserting that nothing else came. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe('agentctl list_changed notifications', () => {
  let harness: AgentctlHarness;
  afterEach(async () => {
    await harness.close();
  });

  it('tells each of 3 sessions exactly once per visible change: applied, stale, unchanged, other surface, applied', async () => {
    harness = await AgentctlHarness.start({ launchSnapshot: snapshotOf([kanbanOnly('one')], 1) });
    const clients = await Promise.all([0, 1, 2].map(() => harness.connectClient()));
    const counts = () => clients.map((c) => c.listChanged());

    const steps: Array<[string, unknown, number[]]> = [
      ['applied', snapshotOf([kanbanOnly('one'), kanbanOnly('two')], 2), [1, 1, 1]],
      ['stale', snapshotOf([kanbanOnly('three')], 2), [1, 1, 1]],
      ['unchanged', snapshotOf([kanbanOnly('one'), kanbanOnly('two')], 3), [1, 1, 1]],
      ['unchanged', snapshotOf([kanbanOnly('one'), kanbanOnly('two'), officeOnly('elsewhere')], 4), [1, 1, 1]],
      ['applied', snapshotOf([kanbanOnly('one')], 5), [2, 2, 2]],
    ];
    for (const [outcome, snapshot, expected] of steps) {
      const answer = await harness.put(snapshot);
      expect(answer).toEqual({
        status: 200,
        body: { outcome, generation: '000000000001-aaaaaaaa', revision: outcome === 'stale' ? 2 : (snapshot as { revision: number }).revision },
      });
      if (outcome === 'applied') await waitUntil(() => counts().every((n, i) => n === expected[i]), 2000, `notifications after ${outcome}`);
      else await settle();
      expect(counts()).toEqual(expected);
    }
    await settle();
    expect(counts()).toEqual([2, 2, 2]);
    const listed = await clients[0].client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(['get_task_context', 'kandev_acme_tools_one']);
  });

  it('sends a catch-up to a session that opens its listening stream after a change', async () => {
    harness = await AgentctlHarness.start({ launchSnapshot: snapshotOf([kanbanOnly('one')], 1) });
    const headers = {
      authorization: `Bearer ${MCP_TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await fetch(harness.mcpUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const session = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const initialized = await fetch(harness.mcpUrl, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);

    expect((await harness.put(snapshotOf([kanbanOnly('one'), kanbanOnly('two')], 2))).body.outcome).toBe('applied');

    const abort = new AbortController();
    const stream = await fetch(harness.mcpUrl, { method: 'GET', headers: { ...session, accept: 'text/event-stream' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let received = '';
    const deadline = Date.now() + 2000;
    while (!received.includes('notifications/tools/list_changed') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      received += Buffer.from(value).toString('utf8');
    }
    abort.abort();
    expect(received).toContain('notifications/tools/list_changed');
    expect(received.match(/list_changed/g)).toHaveLength(1);
  });
});
