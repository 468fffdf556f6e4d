import { join } from 'node:path';
import type { McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useReplicas, type StartedReplica } from '../../support/postgres/use-replicas';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();
const PLUGIN = 'e2e.scoped';
const ADD = 'kandev_e2e_scoped_add_tag';
const PEEK = 'kandev_e2e_scoped_peek';
/** How soon every replica carries out a change made on another (docs/operations.md §10). */
const REACH_MS = 5000;

/**
 * Scopes and profiles on replicas (docs/catalog-and-sessions.md, "Scopes"; docs/operations.md
 * §10): a change made through one replica reaches the agents of sessions the other launched
 * within 5 s, exactly once and only where the session's tools changed, and a profile is looked
 * up in the shared store, whichever replica made it or uses it.
 */
describe('scopes and profiles across replicas on one PostgreSQL store', () => {
  const replicas = useReplicas(postgres, 'scopes', ['--plugin-start-timeout-ms', '10000']);

  async function agentOn(replica: StartedReplica, task: string, workspace: string, profile?: string): Promise<{ id: string; agent: McpAgent }> {
    const body = { task_id: task, workspace_id: workspace, surface: 'kanban-task', ...(profile ? { profile } : {}) };
    const started = await replica.api<any>('POST', '/api/v1/sessions', body);
    expect(started.status).toBe(201);
    return { id: started.body.session_id as string, agent: await replicas.sandbox.connect(started.body.mcp.url, started.body.mcp.token) };
  }

  /** Resolves with the ms from `since` to the agent's `count`-th list_changed, which must come within REACH_MS. */
  async function heardWithin(agent: McpAgent, count: number, since: number): Promise<number> {
    await agent.waitForListChanged(count, REACH_MS);
    return agent.listChangedAt[count - 1]! - since;
  }

  it('carries a scope and a profile change made through one replica to the affected sessions of the other within 5 s, once each, and to no other session', async () => {
    const a = await replicas.start('a');
    const b = await replicas.start('b');
    expect(
      (await a.api<any>('POST', '/api/v1/plugins', { path: writeProbePlugin(join(replicas.sandbox.root, 'pkg'), PLUGIN, ['add_tag', 'peek']) })).status,
    ).toBe(201);
    await eventually(
      async () => {
        const copies = (await b.api<{ replicas: Array<{ status: string }> }>('GET', `/api/v1/plugins/${PLUGIN}`)).body.replicas;
        return copies.length === 2 && copies.every((copy) => copy.status === 'active') ? true : undefined;
      },
      REACH_MS,
      'B to run its copy',
    );
    // A profile made through A is there for a session started through B at once: B reads it from the store.
    expect((await a.api<any>('PUT', '/api/v1/profiles/reviewer', { include: ['*'], exclude: [] })).status).toBe(200);
    const team = await agentOn(b, 'task-team', 'team');
    const other = await agentOn(b, 'task-other', 'other');
    const reviewer = await agentOn(b, 'task-review', 'team', 'reviewer');
    for (const { agent } of [team, other, reviewer]) expect(await agent.toolNames()).toEqual(expect.arrayContaining([ADD, PEEK]));

    // A scope change through A: only B's sessions of workspace `team` lose add_tag.
    const changedAt = performance.now();
    const scope = await a.api<any>('PUT', `/api/v1/plugins/${PLUGIN}/scope`, { workspaces: '*', disabled_tools: { team: ['add_tag'] } });
    expect(scope.status).toBe(200);
    expect(await heardWithin(team.agent, 1, changedAt)).toBeLessThan(REACH_MS);
    expect(await heardWithin(reviewer.agent, 1, changedAt)).toBeLessThan(REACH_MS);
    expect(await team.agent.toolNames()).not.toContain(ADD);
    expect(await team.agent.toolNames()).toContain(PEEK);

    // A profile change through A: only B's reviewer session loses peek.
    const narrowedAt = performance.now();
    expect((await a.api<any>('PUT', '/api/v1/profiles/reviewer', { include: ['*'], exclude: ['*_peek'] })).status).toBe(200);
    expect(await heardWithin(reviewer.agent, 2, narrowedAt)).toBeLessThan(REACH_MS);
    expect(await reviewer.agent.toolNames()).not.toContain(PEEK);
    expect(await team.agent.toolNames()).toContain(PEEK);

    // Both replicas have answered the same revision for both changes: every push has been sent.
    await eventually(
      async () => {
        const [ra, rb] = await Promise.all([a, b].map(async (r) => (await r.api<{ revision: number }>('GET', '/api/v1/catalog')).body.revision));
        return ra === rb ? true : undefined;
      },
      REACH_MS,
      'both replicas at one revision',
    );
    expect(team.agent.listChanged()).toBe(1);
    expect(reviewer.agent.listChanged()).toBe(2);
    expect(other.agent.listChanged()).toBe(0);
    expect(await other.agent.toolNames()).toEqual(expect.arrayContaining([ADD, PEEK]));
  });

  it('refuses, through one replica, to delete a profile a session started through the other uses, and a start with a profile the other deleted', async () => {
    const a = await replicas.start('a');
    const b = await replicas.start('b');
    expect((await b.api<any>('PUT', '/api/v1/profiles/ops', { include: ['*'] })).status).toBe(200);
    expect((await b.api<any>('PUT', '/api/v1/profiles/gone', { include: ['*'] })).status).toBe(200);
    const started = await b.api<any>('POST', '/api/v1/sessions', { task_id: 't', workspace_id: 'w', surface: 'kanban-task', profile: 'ops', launch: false });
    expect(started.status).toBe(201);
    const refused = await a.api<any>('DELETE', '/api/v1/profiles/ops');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'PROFILE_IN_USE', details: { sessions: [started.body.session_id], rules: [] } });

    expect((await a.api<any>('DELETE', '/api/v1/profiles/gone')).status).toBe(204);
    // At once, not once B has heard of the deletion: B looks the profile up in the store.
    const late = await b.api<any>('POST', '/api/v1/sessions', { task_id: 't', workspace_id: 'w', surface: 'kanban-task', profile: 'gone', launch: false });
    expect(late.status).toBe(422);
    expect(late.body.error.code).toBe('UNKNOWN_PROFILE');
  });
});
