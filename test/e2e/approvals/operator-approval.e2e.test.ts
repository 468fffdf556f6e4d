import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(60_000);

const PLUGIN = 'approve.probe';
const DROP = 'kandev_approve_probe_drop_table';
const LOOK = 'kandev_approve_probe_look';

/** Each call the plugin sees appends its arguments' `table` to calls.log in its data dir. */
const SOURCE = `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '@toolport/plugin-sdk';
const seen = (what: unknown) => appendFileSync(join(process.env.TOOLPORT_PLUGIN_DATA_DIR ?? '.', 'calls.log'), String(what) + '\\n');
void serve({
  tools: {
    drop_table: (args) => { seen(args.table); return 'dropped ' + String(args.table); },
    look: (args) => { seen(args.table); return 'looked at ' + String(args.table); },
  },
});
`;

const table = { type: 'object', properties: { table: { type: 'string' } }, required: ['table'] };

/**
 * Issue 29 end to end: a session in workspace `prod` calls a destructive tool under an operator
 * rule; the operator decides through the real CLI. Approved, the call runs; denied or expired,
 * it ends with its code and the plugin never saw it.
 */
describe('operator approval through the CLI', () => {
  // A tool deadline far below the approval timeout: the agentctl must not count the wait against it.
  const world = new BackendWorld(['--plugin-sandbox', 'off', '--tool-timeout-ms', '500', '--approval-timeout-ms', '7000'], {
    prefix: 'toolport-approvals-',
    workspace: 'prod',
  });
  const run = (args: string[]) => runToolport([...args, '--data-dir', world.dataDir]);
  const seen = (): string[] => {
    const log = join(world.dataDir, 'plugin-data', PLUGIN, 'calls.log');
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  };
  /** The one request `approval list --json` shows, once there is one. */
  const waiting = async (): Promise<{ id: string; tool: string; workspace_id: string; arguments_sha256: string }> => {
    for (;;) {
      const listed = await run(['approval', 'list', '--json']);
      expect(listed.code).toBe(0);
      const requests = JSON.parse(listed.stdout) as Array<{ id: string; tool: string; workspace_id: string; arguments_sha256: string }>;
      if (requests.length > 0) return requests[0]!;
    }
  };
  let agent: Awaited<ReturnType<BackendWorld['agent']>>;

  beforeAll(async () => {
    await world.start();
    await world.install(
      writePluginPackage(join(world.root, 'probe'), {
        manifest: {
          api_version: 1,
          id: PLUGIN,
          version: '1.0.0',
          agent_tools: [
            { name: 'drop_table', description: 'Drops a table.', surfaces: ['kanban-task'], input_schema: table },
            { name: 'look', description: 'Reads a table.', surfaces: ['kanban-task'], input_schema: table, annotations: { read_only_hint: true } },
          ],
        },
        source: SOURCE,
      }),
    );
    const rules = join(world.root, 'rules.json');
    writeFileSync(rules, JSON.stringify([{ workspace: 'prod', profile: '*', tools: 'destructive', mode: 'operator' }]));
    const set = await run(['approval', 'rules', 'set', rules]);
    expect(set).toMatchObject({ code: 0 });
    expect(set.stdout).toContain('destructive');
    agent = await world.agent(await world.session('kanban-task'));
  }, 90_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('refuses bad rules whole, naming every problem, and keeps the stored ones', async () => {
    const bad = join(world.root, 'bad-rules.json');
    writeFileSync(bad, JSON.stringify([{ workspace: 'prod', profile: 'ghost', tools: 'destructive', mode: 'human' }]));
    const refused = await run(['approval', 'rules', 'set', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('RULES_INVALID');
    expect(refused.stderr).toContain('[0].profile');
    expect(refused.stderr).toContain('[0].mode');
    const notJson = join(world.root, 'not-json.json');
    writeFileSync(notJson, '[{');
    expect(await run(['approval', 'rules', 'set', notJson])).toMatchObject({ code: 2, stderr: expect.stringContaining('is not JSON') });
    expect(await world.api('PUT', '/api/v1/approval-rules', { rules: [] })).toMatchObject({ status: 422, body: { error: { code: 'RULES_INVALID' } } });
    expect(await world.api('POST', '/api/v1/approvals/nope/approve', { why: 'x' })).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
    expect(await world.api('POST', '/api/v1/approvals/nope/approve', {})).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await world.api('GET', '/api/v1/approval-rules')).toMatchObject({
      status: 200,
      body: [{ workspace: 'prod', profile: '*', tools: 'destructive', mode: 'operator' }],
    });
  });

  it('lets a call no rule holds through at once', async () => {
    expect(resultText(await agent.call(LOOK, { table: 'users' }))).toBe('looked at users');
    expect(seen()).toEqual(['users']);
  });

  it('holds a destructive call until `toolport approval approve`, then runs it once', async () => {
    const call = agent.call(DROP, { table: 'orders' });
    const request = await waiting();
    expect(request).toMatchObject({ tool: DROP, workspace_id: 'prod', arguments_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(seen()).not.toContain('orders');
    const approved = await run(['approval', 'approve', request.id, '--reason', 'planned']);
    expect(approved).toMatchObject({ code: 0, stdout: expect.stringContaining(`Approved ${DROP}`) });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('dropped orders');
    expect(seen().filter((t) => t === 'orders')).toHaveLength(1);
    const again = await run(['approval', 'deny', request.id]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('ALREADY_DECIDED') });
  });

  it('ends a denied call with [APPROVAL_DENIED] and its reason; the plugin never saw it', async () => {
    const call = agent.call(DROP, { table: 'payments' });
    const request = await waiting();
    expect(await run(['approval', 'deny', request.id, '--reason', 'not in business hours'])).toMatchObject({ code: 0 });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^\[APPROVAL_DENIED\] .*not in business hours/);
    expect(seen()).not.toContain('payments');
  });

  it('ends a call nobody decides with [APPROVAL_TIMEOUT], not the tool deadline; the plugin never saw it and the request is gone', async () => {
    const result = await agent.call(DROP, { table: 'invoices' });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^\[APPROVAL_TIMEOUT\] /);
    expect(seen()).not.toContain('invoices');
    expect(await run(['approval', 'list'])).toMatchObject({ code: 0, stdout: 'No call awaits approval\n' });
  });
});
