import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { ConsoleBrowser, goTo } from '../../support/browser/console-browser';
import { eventually } from '../../support/eventually';
import { recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useReplicas, type StartedReplica } from '../../support/postgres/use-replicas';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();
const PLUGIN = 'e2e.watched';
const ADD = 'kandev_e2e_watched_add_tag';

/**
 * The console's Approvals page on replicas (docs/approvals.md; docs/operations.md §10), in a
 * real chromium: a call replica A holds appears live on replica B's page, and leaves it without
 * a reload once decided through A, or withdrawn because its caller cancelled.
 */
describe('console: approvals held by another replica', () => {
  const replicas = useReplicas(postgres, 'console_approvals', ['--plugin-start-timeout-ms', '10000']);
  let b: StartedReplica | undefined;
  const browser = new ConsoleBrowser(() => b!.backend.url);

  beforeAll(() => browser.start(), 30_000);
  afterAll(() => browser.close());

  it("shows on B's page the calls A holds, and drops them once decided or withdrawn there", async () => {
    const a = await replicas.start('a');
    b = await replicas.start('b');
    expect((await a.api('POST', '/api/v1/plugins', { path: writeProbePlugin(join(replicas.sandbox.root, 'pkg'), PLUGIN, ['add_tag']) })).status).toBe(201);
    await eventually(
      async () => {
        const copies = (await b!.api<{ replicas: Array<{ status: string }> }>('GET', `/api/v1/plugins/${PLUGIN}`)).body.replicas;
        return copies.length === 2 && copies.every((copy) => copy.status === 'active') ? true : undefined;
      },
      10_000,
      'B to run its copy',
    );
    expect((await a.api('PUT', '/api/v1/approval-rules', [{ workspace: 'prod', profile: '*', tools: PLUGIN, mode: 'operator' }])).status).toBe(200);
    // The session is started through A, whose agentctl links to A: A holds its calls.
    const started = await a.api<any>('POST', '/api/v1/sessions', { task_id: 'T-watched', workspace_id: 'prod', surface: 'kanban-task' });
    expect(started.status).toBe(201);
    const agent = await replicas.sandbox.connect(started.body.mcp.url, started.body.mcp.token);

    const { page, problems } = await browser.open(`/console/#token=${encodeURIComponent(b.backend.token)}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await goTo(page, '#/approvals');
    await page.getByText('No call awaits approval.').waitFor();
    const approveButton = page.getByRole('button', { name: new RegExp(`^Approve ${ADD} for session `) });

    // Decided through A's API: B's page drops it.
    const approved = agent.call(ADD, { tag: 'watched' });
    await approveButton.waitFor();
    const listed = (await a.api<Array<{ id: string; holder?: string }>>('GET', '/api/v1/approvals')).body;
    expect(listed).toHaveLength(1);
    expect(await a.api('POST', `/api/v1/approvals/${listed[0]!.id}/approve`, {})).toMatchObject({ status: 200 });
    expect(resultText(await approved)).toContain('watched');
    await page.getByText('No call awaits approval.').waitFor();

    // Withdrawn on A (its caller cancelled): B's page drops it too.
    const cancel = new AbortController();
    const cancelled = agent.call(ADD, { tag: 'never' }, { signal: cancel.signal }).catch((error: unknown) => error);
    await approveButton.waitFor();
    cancel.abort();
    await cancelled;
    await page.getByText('No call awaits approval.').waitFor();
    expect((await b.api<unknown[]>('GET', '/api/v1/approvals')).body).toEqual([]);

    const tags = [...recordedCalls(a.dataDir, PLUGIN), ...recordedCalls(b.dataDir, PLUGIN)].map((call) => call.args.tag);
    expect(tags).toEqual(['watched']);
    expect(problems).toEqual([]);
    await page.close();
    await agent.close();
  });
});
