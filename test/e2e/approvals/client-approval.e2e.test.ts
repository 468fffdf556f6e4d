import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { agentctlArgs } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const PLUGIN = 'asks.probe';
const DROP = 'kandev_asks_probe_drop_table';
const SCHEMA = { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] };

/** Each call the plugin sees appends its arguments' `table` to calls.log in its data dir. */
const SOURCE = `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '@toolport/plugin-sdk';
void serve({
  tools: {
    drop_table: (args) => {
      appendFileSync(join(process.env.TOOLPORT_PLUGIN_DATA_DIR ?? '.', 'calls.log'), String(args.table) + '\\n');
      return 'dropped ' + String(args.table);
    },
  },
});
`;

/** What an elicitation handler answers next, and what it was asked. */
interface Asked {
  message: string;
  requestedSchema: unknown;
  mode?: string;
}
type Answer = { action: 'accept'; content: { approve: boolean } } | { action: 'decline' | 'cancel' } | 'error' | 'never';
/** Over the session's HTTP endpoint, or a stdio agentctl of a session of its own. */
type Via = 'http' | 'stdio';

/**
 * Issue 29, client mode, end to end: a `client` rule has the agentctl ask the agent's own
 * MCP client. The official SDK v1 client (2025-11-25, asked with `elicitation/create`) and the
 * v2 client (2026-07-28, asked with `input_required` and retrying by itself) answer accept,
 * decline and cancel; a client without the `elicitation` capability is decided by an operator
 * through the CLI. A call the client declined never reaches the plugin.
 */
describe('client approval with the official SDK clients', () => {
  const world = new BackendWorld(['--plugin-sandbox', 'off', '--tool-timeout-ms', '500', '--approval-timeout-ms', '8000'], {
    prefix: 'toolport-client-approvals-',
    workspace: 'prod',
  });
  const run = (args: string[]) => runToolport([...args, '--data-dir', world.dataDir]);
  const seen = (): string[] => {
    const log = join(world.dataDir, 'plugin-data', PLUGIN, 'calls.log');
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  };
  /** The backend's `tool call` log lines for one table (the arguments are never logged: matched by order). */
  const toolCallLines = (): Array<Record<string, unknown>> =>
    world.backend
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"tool call"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.local_name === 'drop_table');
  /** drop_table calls made so far: each ends in exactly one log line. */
  let made = 0;
  /** The log lines once every call made has its own (the backend writes them asynchronously), never more. */
  const loggedLines = async (): Promise<Array<Record<string, unknown>>> => {
    const lines = await eventually(() => (toolCallLines().length >= made ? toolCallLines() : undefined), 5000, 'a log line for every call');
    expect(lines).toHaveLength(made);
    return lines;
  };
  let endpoint: { url: string; token: string };
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    await world.start();
    await world.install(
      writePluginPackage(join(world.root, 'probe'), {
        manifest: {
          api_version: 1,
          id: PLUGIN,
          version: '1.0.0',
          agent_tools: [
            {
              name: 'drop_table',
              description: 'Drops a table.',
              surfaces: ['kanban-task'],
              input_schema: { type: 'object', properties: { table: { type: 'string' } }, required: ['table'] },
            },
          ],
        },
        source: SOURCE,
      }),
    );
    const rules = join(world.root, 'rules.json');
    writeFileSync(rules, JSON.stringify([{ workspace: '*', profile: '*', tools: DROP, mode: 'client' }]));
    expect(await run(['approval', 'rules', 'set', rules])).toMatchObject({ code: 0 });
    const session = await world.session('kanban-task');
    endpoint = { url: session.mcp!.url, token: session.mcp!.token };
  }, 90_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  let stdioSessions = 0;
  /** How to start an agentctl on stdio for a new session of its own. */
  async function stdioAgentctl(): Promise<{ command: string; args: string[]; env: Record<string, string>; cwd: string }> {
    const started = await world.session('kanban-task', `task-stdio-${++stdioSessions}`, false);
    return {
      command: process.execPath,
      args: [...agentctlArgs(), '--stdio', '--backend-url', started.agentctl!.backend_url],
      env: { PATH: process.env.PATH ?? '', TOOLPORT_SESSION_TOKEN: started.agentctl!.session_token },
      cwd: world.root,
    };
  }

  /** An SDK v1 client (2025-11-25) whose elicitation handler answers `answers` in turn; `null`: no elicitation capability. */
  async function v1Client(answers: Answer[] | null, via: Via = 'http'): Promise<{ call(table: string): Promise<CallToolResult>; asked: Asked[] }> {
    const asked: Asked[] = [];
    const client = new ClientV1({ name: 'e2e v1', version: '1.0.0' }, answers ? { capabilities: { elicitation: {} } } : {});
    if (answers) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params as Asked);
        const answer = answers.shift();
        if (answer === 'never') return new Promise<never>(() => undefined);
        if (answer === 'error' || answer === undefined) throw new Error('the person closed the dialog');
        return answer;
      });
    }
    const transport =
      via === 'http'
        ? new HttpTransportV1(new URL(endpoint.url), { requestInit: { headers: { Authorization: `Bearer ${endpoint.token}` } } })
        : new StdioTransportV1({ ...(await stdioAgentctl()), stderr: 'ignore' });
    await client.connect(transport);
    closers.push(() => client.close());
    return {
      asked,
      call: async (table) => {
        made++;
        return (await client.callTool({ name: DROP, arguments: { table } }, undefined, { timeout: 30_000 })) as CallToolResult;
      },
    };
  }

  /** An SDK v2 client pinned to 2026-07-28 whose elicitation handler answers `answers` in turn. */
  async function v2Client(
    answers: Answer[],
    via: Via = 'http',
    revision: '2026-07-28' | '2025-03-26' = '2026-07-28',
  ): Promise<{ call(table: string): Promise<CallToolResult>; asked: Asked[] }> {
    const asked: Asked[] = [];
    const client = new ClientV2(
      { name: 'e2e v2', version: '1.0.0' },
      revision === '2026-07-28'
        ? { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } }
        : { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: ['2025-03-26'] },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params as Asked);
      const answer = answers.shift();
      if (answer === 'never') return new Promise<never>(() => undefined);
      if (answer === 'error' || answer === undefined) throw new Error('the person closed the dialog');
      return Promise.resolve(answer);
    });
    const transport =
      via === 'http'
        ? new HttpTransportV2(new URL(endpoint.url), { requestInit: { headers: { Authorization: `Bearer ${endpoint.token}` } } })
        : new StdioTransportV2({ ...(await stdioAgentctl()), stderr: 'ignore' });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);
    closers.push(() => client.close());
    return {
      asked,
      call: async (table) => {
        made++;
        return (await client.callTool({ name: DROP, arguments: { table } }, { timeout: 30_000 })) as CallToolResult;
      },
    };
  }

  it('2025-11-25 (SDK v1): asks with elicitation/create naming the tool, the plugin and the arguments; accept runs the call once', async () => {
    const client = await v1Client([{ action: 'accept', content: { approve: true } }]);
    const result = await client.call('orders');
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('dropped orders');
    expect(client.asked).toEqual([
      { mode: 'form', message: `Allow ${DROP} (plugin ${PLUGIN}) with these arguments? {"table":"orders"}`, requestedSchema: SCHEMA },
    ]);
    expect(seen()).toEqual(['orders']);
    expect((await loggedLines()).at(-1)).toMatchObject({ outcome: 'success', approval: 'client' });
  });

  it.each<[string, Answer]>([
    ['decline', { action: 'decline' }],
    ['cancel', { action: 'cancel' }],
    ['approve: false', { action: 'accept', content: { approve: false } }],
    ['a JSON-RPC error', 'error'],
  ])('2025-11-25 (SDK v1): %s ends the call [APPROVAL_DENIED] and the plugin never sees it', async (name, answer) => {
    const table = `v1-${name.replace(/\W+/g, '-')}`;
    const client = await v1Client([answer]);
    const result = await client.call(table);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^\[APPROVAL_DENIED\] /);
    expect(client.asked).toHaveLength(1);
    expect(seen()).not.toContain(table);
    expect((await loggedLines()).at(-1)).toMatchObject({ code: 'APPROVAL_DENIED', approval: 'client' });
  });

  it('2025-11-25 (SDK v1): a client that never answers ends the call [APPROVAL_TIMEOUT] after the approval timeout, not the tool deadline', async () => {
    const client = await v1Client(['never']);
    const result = await client.call('v1-never');
    // Not the 500 ms tool deadline's code: the wait for the client never counted against it.
    expect(resultText(result)).toMatch(/^\[APPROVAL_TIMEOUT\] /);
    expect(seen()).not.toContain('v1-never');
    expect((await loggedLines()).at(-1)).toMatchObject({ code: 'APPROVAL_TIMEOUT', approval: 'client' });
  });

  it('2026-07-28 (SDK v2): input_required, the client answers and retries; accept runs the call once, as one call', async () => {
    const before = (await loggedLines()).length;
    const client = await v2Client([{ action: 'accept', content: { approve: true } }]);
    const result = await client.call('carts');
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('dropped carts');
    expect(client.asked).toEqual([
      { mode: 'form', message: `Allow ${DROP} (plugin ${PLUGIN}) with these arguments? {"table":"carts"}`, requestedSchema: SCHEMA },
    ]);
    expect(seen().filter((table) => table === 'carts')).toHaveLength(1);
    // The first request and its retry were one call: one log line.
    expect((await loggedLines()).slice(before)).toEqual([expect.objectContaining({ outcome: 'success', approval: 'client' })]);
  });

  it.each<[string, Answer]>([
    ['decline', { action: 'decline' }],
    ['cancel', { action: 'cancel' }],
  ])('2026-07-28 (SDK v2): %s ends the call [APPROVAL_DENIED] and the plugin never sees it', async (name, answer) => {
    const table = `v2-${name}`;
    const before = (await loggedLines()).length;
    const client = await v2Client([answer]);
    const result = await client.call(table);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^\[APPROVAL_DENIED\] /);
    expect(seen()).not.toContain(table);
    expect((await loggedLines()).slice(before)).toEqual([expect.objectContaining({ code: 'APPROVAL_DENIED', approval: 'client' })]);
  });

  /** Approves through the CLI the one request that shows up, and answers what the call got. */
  async function approvedByOperator(call: Promise<CallToolResult>, table: string): Promise<CallToolResult> {
    let request: { id: string; tool: string } | undefined;
    while (!request) {
      const listed = await run(['approval', 'list', '--json']);
      request = (JSON.parse(listed.stdout) as Array<{ id: string; tool: string }>)[0];
    }
    expect(request.tool).toBe(DROP);
    expect(seen()).not.toContain(table);
    expect(await run(['approval', 'approve', request.id])).toMatchObject({ code: 0 });
    return call;
  }

  it('a client without the elicitation capability is decided by an operator through the CLI', async () => {
    const client = await v1Client(null);
    expect(resultText(await approvedByOperator(client.call('audit'), 'audit'))).toBe('dropped audit');
    expect((await loggedLines()).at(-1)).toMatchObject({ outcome: 'success', approval: 'operator', approved_by: 'admin' });
  });

  it('a 2025-03-26 client is decided by an operator even when it declares elicitation; it is never asked', async () => {
    const client = await v2Client([{ action: 'accept', content: { approve: true } }], 'http', '2025-03-26');
    expect(resultText(await approvedByOperator(client.call('ledger'), 'ledger'))).toBe('dropped ledger');
    expect(client.asked).toEqual([]);
    expect((await loggedLines()).at(-1)).toMatchObject({ outcome: 'success', approval: 'operator' });
  });

  it.each<['v1' | 'v2', Answer, boolean]>([
    ['v1', { action: 'accept', content: { approve: true } }, true],
    ['v1', { action: 'decline' }, false],
    ['v2', { action: 'accept', content: { approve: true } }, true],
    ['v2', { action: 'decline' }, false],
  ])('over stdio, an SDK %s client is asked too (%j)', async (sdk, answer, runs) => {
    const table = `stdio-${sdk}-${runs ? 'yes' : 'no'}`;
    const client = sdk === 'v1' ? await v1Client([answer], 'stdio') : await v2Client([answer], 'stdio');
    const result = await client.call(table);
    expect(client.asked).toHaveLength(1);
    expect(client.asked[0]!.message).toBe(`Allow ${DROP} (plugin ${PLUGIN}) with these arguments? {"table":"${table}"}`);
    if (runs) expect(resultText(result)).toBe(`dropped ${table}`);
    else expect(resultText(result)).toMatch(/^\[APPROVAL_DENIED\] /);
    expect(seen().filter((seenTable) => seenTable === table)).toHaveLength(runs ? 1 : 0);
  });
});
