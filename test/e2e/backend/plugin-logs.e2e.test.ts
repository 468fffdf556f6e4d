import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';

const PLUGIN = 'logs.probe';
const CANARY = 'canary-argument-5b0e1c';
const SOURCE = `
import { serve } from '@toolport/plugin-sdk';
process.stderr.write('probe warming up; sent Authorization: Bearer s3cr3t-in-a-line\\n');
void serve({
  tools: {
    shout: (args) => {
      process.stderr.write('shout handled\\n');
      return 'heard ' + String(args.text).length + ' characters';
    },
    strict: () => 'no structured content, though the tool declares an output schema',
  },
});
`;

function manifest() {
  const input = { type: 'object', properties: { text: { type: 'string' } } };
  return {
    api_version: 1,
    id: PLUGIN,
    version: '1.0.0',
    agent_tools: [
      { name: 'shout', description: 'Says how long the text is.', surfaces: ['kanban-task'], input_schema: input },
      {
        name: 'strict',
        description: 'Breaks its output schema.',
        surfaces: ['kanban-task'],
        input_schema: input,
        output_schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
    ],
  };
}

type LogRecord = { time: string; level: string; msg: string; plugin_id: string; [key: string]: unknown };

/** Each plugin's log, kept by the backend: its stderr, the backend's records about it, a failed call; served, filed, kept across a restart. */
describe('backend: each plugin’s recent log', () => {
  const world = new BackendWorld([], { prefix: 'toolport-plugin-logs-' });
  let agent: McpAgent;

  const logs = async (query = '') => world.api<LogRecord[]>('GET', `/api/v1/plugins/${PLUGIN}/logs${query}`);

  beforeAll(async () => {
    await world.start();
    await world.install(writePluginPackage(join(world.root, 'probe'), { manifest: manifest(), source: SOURCE }));
    agent = await world.agent(await world.session('kanban-task'));
  }, 60_000);

  afterAll(async () => {
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 30_000);

  it('serves the plugin’s stderr lines and the backend’s records about it, newest last, redacted', async () => {
    const answer = await logs();
    expect(answer.status).toBe(200);
    const records = answer.body;
    expect(records.every((r) => r.plugin_id === PLUGIN && typeof r.time === 'string' && typeof r.level === 'string')).toBe(true);
    const msgs = records.map((r) => r.msg);
    expect(msgs).toEqual(expect.arrayContaining(['plugin started', 'plugin installed']));
    const warming = records.find((r) => r.msg.startsWith('probe warming up'));
    expect(warming).toMatchObject({ level: 'info', stream: 'stderr' });
    expect(warming!.msg).toContain('Bearer [redacted]');
    expect(JSON.stringify(records)).not.toContain('s3cr3t-in-a-line');
    expect(msgs.indexOf('plugin installed')).toBeGreaterThan(msgs.indexOf('plugin started'));
  });

  it('logs a failed call at warn with its tool, code and the reason the agent read; never an argument', async () => {
    expect(resultText(await agent.call(`kandev_logs_probe_shout`, { text: CANARY }))).toBe(`heard ${CANARY.length} characters`);
    const failed = await agent.call('kandev_logs_probe_strict', { text: CANARY });
    expect(failed.isError).toBe(true);
    const records = await eventually(
      async () => {
        const body = (await logs()).body;
        return body.some((r) => r.msg === 'tool call' && r.outcome === 'error') ? body : undefined;
      },
      5000,
      'the failed call in the plugin’s log',
    );
    const warning = records.find((r) => r.msg === 'tool call' && r.outcome === 'error')!;
    expect(warning).toMatchObject({ level: 'warn', local_name: 'strict', code: 'BAD_RESULT', reason: expect.stringContaining('output schema') });
    expect(resultText(failed)).toContain(warning.reason as string);
    expect(records.map((r) => r.msg)).toContain('shout handled');
    expect(JSON.stringify(records)).not.toContain(CANARY);
    expect(readFileSync(join(world.dataDir, 'logs', `${PLUGIN}.log`), 'utf8')).not.toContain(CANARY);
  });

  it('answers the last N with ?limit=N, and refuses a bad limit or an unknown plugin', async () => {
    const all = (await logs('?limit=1000')).body;
    const two = await logs('?limit=2');
    expect(two.body).toEqual(all.slice(-2));
    expect((await logs('?limit=0')).body).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringContaining('limit') } });
    expect((await logs('?limit=ten')).status).toBe(400);
    const unknown = await world.api('GET', '/api/v1/plugins/no.such.plugin/logs');
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it('writes them to a private file under the data dir, and a restarted backend still has them', async () => {
    const dir = join(world.dataDir, 'logs');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toContain(`${PLUGIN}.log`);
    expect(statSync(join(dir, `${PLUGIN}.log`)).mode & 0o777).toBe(0o600);
    const lines = readFileSync(join(dir, `${PLUGIN}.log`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LogRecord);
    expect(lines.map((r) => r.msg)).toContain('shout handled');

    await world.closeAgents();
    expect(await world.backend.stop('SIGTERM')).toBe(0);
    await world.start();
    const after = (await logs('?limit=1000')).body.map((r) => r.msg);
    expect(after).toContain('shout handled');
    expect(after.lastIndexOf('plugin started')).toBeGreaterThan(after.indexOf('shout handled'));
  }, 40_000);
});
