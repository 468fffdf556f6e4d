import type { CatalogSnapshot } from '../../src/domain/catalog';
import { catalogTool, snapshotOf } from '../support/test-backend';
import { AgentctlHarness, MCP_TOKEN } from './agentctl-harness';

interface ListedTool {
  name: string;
  description?: string;
}

/** tools/list over plain fetch (the SDK client's own per-list work would dominate the timing). */
async function rawList(url: string, headers: Record<string, string>, id: number): Promise<ListedTool[]> {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }) });
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return (JSON.parse(data ? data.slice('data: '.length) : text) as { result: { tools: ListedTool[] } }).result.tools;
}

/** Revision r holds (r % 7) + 1 tools, each describing itself as `rev r`: a mix is detectable. */
function revisionSnapshot(revision: number): CatalogSnapshot {
  const count = (revision % 7) + 1;
  const tools = Array.from({ length: count }, (_, i) => catalogTool(`plugin${i}`, 'run', { description: `rev ${revision}` }));
  return snapshotOf(tools, revision);
}

describe('agentctl registry swaps', () => {
  let harness: AgentctlHarness;
  afterEach(async () => {
    await harness.close();
  });

  it('1,000 tools/list calls racing 200 swaps only ever see whole snapshots', async () => {
    harness = await AgentctlHarness.start({ launchSnapshot: revisionSnapshot(1) });
    const clients = await Promise.all([0, 1, 2, 3].map(() => harness.connectClient()));
    const seen: Array<{ revisions: Set<string>; count: number }> = [];

    const swaps = (async () => {
      for (let revision = 2; revision <= 201; revision++) {
        const answer = await harness.put(revisionSnapshot(revision));
        expect(answer.status).toBe(200);
      }
    })();
    let nextId = 1000;
    const lists = clients.map(async ({ transport }) => {
      const headers = {
        authorization: `Bearer ${MCP_TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion!,
      };
      for (let batch = 0; batch < 10; batch++) {
        const results = await Promise.all(Array.from({ length: 25 }, () => rawList(harness.mcpUrl, headers, nextId++)));
        for (const tools of results) {
          const plugin = tools.filter((t) => t.name !== 'get_task_context');
          expect(tools[0].name).toBe('get_task_context');
          seen.push({ revisions: new Set(plugin.map((t) => t.description!)), count: plugin.length });
        }
      }
    });
    await Promise.all([swaps, ...lists]);

    expect(seen).toHaveLength(1000);
    for (const view of seen) {
      expect(view.revisions.size).toBe(1);
      const revision = Number([...view.revisions][0].slice('rev '.length));
      expect(view.count).toBe((revision % 7) + 1);
    }
    const distinct = new Set(seen.map((v) => [...v.revisions][0]));
    expect(distinct.size).toBeGreaterThan(1);
  }, 60_000);
});
