import { randomBytes } from 'node:crypto';
import type { McpAgent } from '../../support/clients/mcp-agent';
import type { RunningAgentctl } from '../../support/processes/agentctl-process';
import { BackendWorld } from '../../support/processes/backend-world';

const REVISIONS = 30;

/** A snapshot whose only tool is named after its revision, so tools/list tells which one is held. */
function snapshot(generation: string, revision: number, surfaces = ['kanban-task']) {
  return {
    generation,
    revision,
    tools: [
      {
        plugin_id: 'chaos.snap',
        plugin_version: '1.0.0',
        local_name: `r${revision}`,
        exposed_name: `kandev_chaos_snap_r${revision}`,
        description: `tool of revision ${revision}`,
        surfaces,
        input_schema: { type: 'object' },
        annotations: { read_only_hint: true, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
      },
    ],
  };
}

/** A small seeded generator, so a failing order can be replayed from the seed in the message. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Catalog pushes arrive out of order and twice at an agentctl started by an operator. */
describe('chaos: shuffled and duplicated snapshot deliveries', () => {
  const world = new BackendWorld([], { prefix: 'toolport-chaos-snapshots-' });
  let agentctl: RunningAgentctl | undefined;
  let client: McpAgent | undefined;
  const controlToken = randomBytes(24).toString('base64url');
  let generation: string;
  let base: number;

  beforeAll(async () => {
    await world.start();
    const session = await world.session('kanban-task', 't', false);
    const mcpToken = randomBytes(24).toString('base64url');
    agentctl = await world.startAgentctl({
      backendUrl: session.agentctl!.backend_url,
      tokens: { session: session.agentctl!.session_token, mcp: mcpToken, control: controlToken },
    });
    client = await world.connect(agentctl.mcpUrl, mcpToken);
    const catalog = (await world.api<{ generation: string; revision: number }>('GET', '/api/v1/catalog')).body;
    generation = catalog.generation;
    base = catalog.revision;
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function put(body: unknown): Promise<{ status: number; body: { outcome?: string; generation?: string; revision?: number } }> {
    const response = await fetch(new URL('/api/v1/mcp/plugin-tools', agentctl!.controlUrl!), {
      method: 'PUT',
      headers: { authorization: `Bearer ${controlToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { outcome?: string; revision?: number } };
  }

  it('ends on the highest revision whatever the order, answering each delivery consistently', async () => {
    const seed = Date.now() & 0xffffffff;
    const revisions = Array.from({ length: REVISIONS }, (_, i) => base + 1 + i);
    const deliveries = shuffled([...revisions, ...revisions], seed);
    const highest = base + REVISIONS;

    // Eight deliveries at a time, like a fan-out racing its own retries.
    const answers: Array<{ revision: number; status: number; outcome?: string; applied?: number }> = [];
    for (let i = 0; i < deliveries.length; i += 8) {
      const batch = deliveries.slice(i, i + 8);
      const got = await Promise.all(batch.map((revision) => put(snapshot(generation, revision))));
      got.forEach((answer, k) => answers.push({ revision: batch[k], status: answer.status, outcome: answer.body.outcome, applied: answer.body.revision }));
    }
    const context = `seed ${seed}, order ${deliveries.join(',')}`;
    for (const answer of answers) {
      expect({ context, status: answer.status }).toEqual({ context, status: 200 });
      expect(['applied', 'stale']).toContain(answer.outcome);
      // An `applied` answer reports the revision it stored; a stale one reports what is held, never less than it.
      if (answer.outcome === 'applied') expect(answer.applied).toBe(answer.revision);
      else expect(answer.applied!).toBeGreaterThanOrEqual(answer.revision);
    }
    // Each revision is stored at most once; the highest at least once (nothing can supersede it).
    for (const revision of revisions) {
      expect(answers.filter((a) => a.revision === revision && a.outcome === 'applied').length).toBeLessThanOrEqual(1);
    }
    expect(answers.filter((a) => a.revision === highest && a.outcome === 'applied')).toHaveLength(1);

    expect({ context, names: await client!.toolNames() }).toEqual({ context, names: ['get_task_context', `kandev_chaos_snap_r${highest}`] });

    // Late duplicates and an older generation with a huge revision change nothing.
    expect((await put(snapshot(generation, highest))).body).toEqual({ outcome: 'stale', generation, revision: highest });
    expect((await put(snapshot(generation, base + 1))).body).toEqual({ outcome: 'stale', generation, revision: highest });
    expect((await put(snapshot('000000000000-00000000', 999_999))).body).toEqual({ outcome: 'stale', generation, revision: highest });
    // A malformed delivery is refused even when it is also stale, and nothing changes.
    const malformed = await put({ ...snapshot(generation, base + 2), tools: [{ ...snapshot(generation, 1).tools[0], exposed_name: 'get_task_context' }] });
    expect(malformed.status).toBe(400);
    expect(await client!.toolNames()).toEqual(['get_task_context', `kandev_chaos_snap_r${highest}`]);
    // A newer revision that only changes another surface's tools is stored but `unchanged` here.
    expect(
      (
        await put({
          ...snapshot(generation, highest + 1, ['office-task']),
          tools: [...snapshot(generation, highest).tools, ...snapshot(generation, highest + 1, ['office-task']).tools],
        })
      ).body,
    ).toEqual({
      outcome: 'unchanged',
      generation,
      revision: highest + 1,
    });
  }, 60_000);
});
