import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '../../support/clients/mcp-agent';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(60_000);

const DROP = 'kandev_marks_probe_drop_table';
const COUNT = 'kandev_marks_probe_count_rows';

/**
 * Issue 29, marked tools (docs/approvals.md, "Marked tools"): over 2025-era HTTP, with the
 * official SDK v1 client declaring elicitation, a call of a tool an approval rule may hold is
 * answered as an SSE stream and its elicitation rides on it; any other call is one JSON body;
 * a rules change re-marks the session's tools without any catalog change.
 */
describe('approval marks over 2025-era HTTP', () => {
  const world = new BackendWorld(['--plugin-sandbox', 'off', '--approval-timeout-ms', '8000'], { prefix: 'toolport-marks-', workspace: 'prod' });
  const setRules = async (rules: unknown[]): Promise<void> => {
    const file = join(world.root, `rules-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify(rules));
    expect(await runToolport(['approval', 'rules', 'set', file, '--data-dir', world.dataDir])).toMatchObject({ code: 0 });
  };
  let client: Client;
  /** The content type of each tools/call answer, in order. */
  const callTypes: string[] = [];
  let asked = 0;

  beforeAll(async () => {
    await world.start();
    await world.install(
      writePluginPackage(join(world.root, 'probe'), {
        manifest: {
          api_version: 1,
          id: 'marks.probe',
          version: '1.0.0',
          agent_tools: ['drop_table', 'count_rows'].map((name) => ({
            name,
            description: `The ${name} tool.`,
            surfaces: ['kanban-task'],
            input_schema: { type: 'object', properties: {} },
          })),
        },
        source: `import { serve } from '@toolport/plugin-sdk';\nvoid serve({ tools: { drop_table: () => 'dropped', count_rows: () => 'counted' } });\n`,
      }),
    );
    await setRules([{ workspace: '*', profile: '*', tools: DROP, mode: 'client' }]);
    const session = await world.session('kanban-task');
    client = new Client({ name: 'e2e marks', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked++;
      return { action: 'accept', content: { approve: true } };
    });
    const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
      if (body?.method === 'tools/call') callTypes.push(response.headers.get('content-type') ?? '');
      return response;
    };
    const transport = new StreamableHTTPClientTransport(new URL(session.mcp!.url), {
      requestInit: { headers: { Authorization: `Bearer ${session.mcp!.token}` } },
      fetch: recording,
    });
    await client.connect(transport);
  }, 90_000);

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  const call = async (name: string): Promise<string> =>
    resultText((await client.callTool({ name, arguments: {} }, undefined, { timeout: 30_000 })) as CallToolResult);

  it('streams the marked tool, where its elicitation rides, and answers the unmarked one as JSON', async () => {
    expect(await call(DROP)).toBe('dropped');
    expect(asked).toBe(1);
    expect(await call(COUNT)).toBe('counted');
    expect(asked).toBe(1);
    expect(callTypes).toEqual([expect.stringMatching(/^text\/event-stream/), expect.stringMatching(/^application\/json/)]);
  });

  it('a rules change marks the newly held tool and unmarks the released one, with no catalog change', async () => {
    callTypes.length = 0;
    await setRules([{ workspace: '*', profile: '*', tools: COUNT, mode: 'client' }]);
    expect(await call(COUNT)).toBe('counted');
    expect(asked).toBe(2);
    expect(await call(DROP)).toBe('dropped');
    expect(asked).toBe(2);
    expect(callTypes).toEqual([expect.stringMatching(/^text\/event-stream/), expect.stringMatching(/^application\/json/)]);
  });
});
