import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useReplicas } from '../../support/postgres/use-replicas';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();
const PLUGIN = 'e2e.held';
const ADD = 'kandev_e2e_held_add_tag';

/**
 * Approvals on replicas (docs/approvals.md; docs/operations.md §10): the rules set through one
 * replica are the other's, a call held by one is listed and decided through the other, and the
 * holding replica lets it through, or ends it denied, from the decision in the shared store.
 */
describe('approvals across replicas on one PostgreSQL store', () => {
  const replicas = useReplicas(postgres, 'approvals', ['--plugin-start-timeout-ms', '10000']);

  it('decides through one replica a call the other holds', async () => {
    const a = await replicas.start('a');
    const b = await replicas.start('b');
    expect((await a.api<any>('POST', '/api/v1/plugins', { path: writeProbePlugin(join(replicas.sandbox.root, 'pkg'), PLUGIN, ['add_tag']) })).status).toBe(201);
    await eventually(
      async () => {
        const copies = (await b.api<{ replicas: Array<{ status: string }> }>('GET', `/api/v1/plugins/${PLUGIN}`)).body.replicas;
        return copies.length === 2 && copies.every((copy) => copy.status === 'active') ? true : undefined;
      },
      5000,
      'B to run its copy',
    );
    const rules = [{ workspace: 'prod', profile: '*', tools: PLUGIN, mode: 'operator' }];
    expect(await a.api('PUT', '/api/v1/approval-rules', rules)).toMatchObject({ status: 200, body: rules });
    expect(await b.api('GET', '/api/v1/approval-rules')).toMatchObject({ status: 200, body: rules });

    const started = await b.api<any>('POST', '/api/v1/sessions', { task_id: 'T-held', workspace_id: 'prod', surface: 'kanban-task' });
    expect(started.status).toBe(201);
    const agent = await replicas.sandbox.connect(started.body.mcp.url, started.body.mcp.token);
    /** The one request A lists, once B holds a call. */
    const listedOnA = (): Promise<string> =>
      eventually(
        async () => {
          const listed = (await a.api<Array<{ id: string; session_id: string }>>('GET', '/api/v1/approvals')).body;
          return listed.length === 1 && listed[0]!.session_id === started.body.session_id ? listed[0]!.id : undefined;
        },
        5000,
        'the request listed through A',
      );

    const approved = agent.call(ADD, { tag: 'ship-it' });
    const first = await listedOnA();
    expect(await a.api('POST', `/api/v1/approvals/${first}/approve`, {})).toMatchObject({ status: 200, body: { decision: 'approved', decided_by: 'admin' } });
    const result = await approved;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('ship-it');

    const denied = agent.call(ADD, { tag: 'not-this' });
    const second = await listedOnA();
    expect(await a.api('POST', `/api/v1/approvals/${second}/deny`, { reason: 'freeze' })).toMatchObject({ status: 200, body: { decision: 'denied' } });
    const refused = await denied;
    expect(resultText(refused)).toMatch(/^\[APPROVAL_DENIED\] .*freeze/);
    expect(await b.api('POST', `/api/v1/approvals/${second}/approve`, {})).toMatchObject({ status: 409, body: { error: { code: 'ALREADY_DECIDED' } } });
    const tags = [...recordedCalls(a.dataDir, PLUGIN), ...recordedCalls(b.dataDir, PLUGIN)].map((call) => call.args.tag);
    expect(tags).toEqual(['ship-it']);
    await agent.close();
  });
});
