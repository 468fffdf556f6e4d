import { join } from 'node:path';
import { adminApi, type AdminApi } from '../../support/clients/admin-api';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { ProcessSandbox } from '../../support/processes/process-sandbox';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();
const ADMIN_TOKEN = 'e2e-replica-approvals-admin-token';
const SECRET_KEY = '3e'.repeat(32);
const PLUGIN = 'e2e.held';
const ADD = 'kandev_e2e_held_add_tag';

interface Replica {
  api: AdminApi;
  dataDir: string;
}

/**
 * Approvals on replicas (docs/approvals.md; docs/operations.md §10): the rules set through one
 * replica are the other's, a call held by one is listed and decided through the other, and the
 * holding replica lets it through, or ends it denied, from the decision in the shared store.
 */
describe('approvals across replicas on one PostgreSQL store', () => {
  let sandbox: ProcessSandbox;
  let database: string;

  beforeEach(async () => {
    database = await postgres().createDatabase('approvals');
    sandbox = new ProcessSandbox('toolport-e2e-replica-approvals-');
  });

  afterEach(async () => {
    expect(await sandbox.teardown()).toEqual([]);
    await postgres().dropDatabase(database);
  }, 30_000);

  async function startReplica(name: string): Promise<Replica> {
    const env = { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: SECRET_KEY, PGPASSFILE: postgres().writePgpass(sandbox.root) };
    const dataDir = join(sandbox.root, name);
    const backend = await sandbox.startBackend({ dataDir, env, args: ['--store', postgres().url(database), '--plugin-start-timeout-ms', '10000'] });
    return { api: adminApi(backend.url, backend.token), dataDir };
  }

  it('decides through one replica a call the other holds', async () => {
    const a = await startReplica('a');
    const b = await startReplica('b');
    expect((await a.api<any>('POST', '/api/v1/plugins', { path: writeProbePlugin(join(sandbox.root, 'pkg'), PLUGIN, ['add_tag']) })).status).toBe(201);
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
    const agent = await sandbox.connect(started.body.mcp.url, started.body.mcp.token);
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
