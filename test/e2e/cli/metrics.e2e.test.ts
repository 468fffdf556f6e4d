import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { adminApi, type AdminApi } from '../../support/clients/admin-api';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writePluginPackage } from '../../support/packages/plugin-package';
import type { RunningBackend } from '../../support/processes/backend-process';
import { BackendWorld } from '../../support/processes/backend-world';
import { REPO_ROOT, pluginFolders } from '../../support/processes/toolport-paths';

const PROBE = 'metrics.probe';
const PROBE_SOURCE = `
import { serve } from '@toolport/plugin-sdk';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
void serve({
  tools: {
    ok: () => 'fine',
    fail: () => ({ text: 'the tool says no', isError: true }),
    hang: (args, ctx, signal) => {
      writeFileSync(join(process.env.TOOLPORT_PLUGIN_DATA_DIR, 'hang-started'), ctx.invocationId);
      return new Promise((done) => signal.addEventListener('abort', () => done('stopped')));
    },
    crash: () => {
      setImmediate(() => process.exit(3));
      return new Promise(() => undefined);
    },
  },
});
`;

function probeManifest() {
  return {
    api_version: 1,
    id: PROBE,
    version: '1.0.0',
    agent_tools: ['ok', 'fail', 'hang', 'crash'].map((name) => ({
      name,
      description: `The ${name} tool.`,
      surfaces: ['kanban-task'],
      input_schema: { type: 'object', properties: { n: { type: 'integer' } } },
    })),
  };
}

/** Prometheus text → `name{label="v",…}` (labels sorted) → value. */
function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels = (match[2] ?? '')
      .split(/,(?=[a-zA-Z_]\w*=")/)
      .filter(Boolean)
      .sort();
    samples.set(`${match[1]}{${labels.join(',')}}`, Number(match[3]));
  }
  return samples;
}

/** `GET /metrics` after real calls through MCP: invocations by outcome and plugin, latency, catalog and session gauges. */
describe('GET /metrics', () => {
  const world = new BackendWorld(['--plugin-max-inflight', '1', '--restart-backoff-ms', '100', '--health-interval-ms', '60000'], {
    prefix: 'toolport-metrics-',
  });
  let base: string;
  let backend: RunningBackend;
  let api: AdminApi;
  let agent: McpAgent;
  let sessionId: string;

  async function scrape(): Promise<Map<string, number>> {
    const response = await fetch(new URL('/metrics', backend.url), { headers: { authorization: `Bearer ${backend.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(await response.text());
  }

  beforeAll(async () => {
    base = world.root;
    const probeDir = writePluginPackage(join(base, 'probe'), { manifest: probeManifest(), source: PROBE_SOURCE });
    backend = await world.start();
    api = adminApi(backend.url, backend.token);
    expect((await api('POST', '/api/v1/plugins', { path: probeDir })).status).toBe(201);
    expect((await api('POST', '/api/v1/plugins', { path: join(REPO_ROOT, 'examples', 'plugins', 'echo') })).status).toBe(201);
    const session = await api<{ session_id: string; mcp: { url: string; token: string } }>('POST', '/api/v1/sessions', {
      task_id: 'T-metrics',
      workspace_id: 'W',
      surface: 'kanban-task',
    });
    expect(session.status).toBe(201);
    sessionId = session.body.session_id;
    agent = await world.connect(session.body.mcp.url, session.body.mcp.token, 'metrics-e2e');
  }, 60_000);

  afterAll(async () => {
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 20_000);

  it('refuses a scrape without the admin token', async () => {
    expect((await fetch(new URL('/metrics', backend.url))).status).toBe(401);
    const wrong = await fetch(new URL('/metrics', backend.url), { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });

  it('counts calls by plugin and outcome, times them, and shows the catalog and live sessions', async () => {
    const call = (name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
      agent.call(name, args, signal ? ({ signal } satisfies RequestOptions) : undefined);

    for (let n = 0; n < 3; n++) expect(await call('kandev_metrics_probe_ok', { n })).toMatchObject({ content: [{ text: 'fine' }] });
    const failed = await call('kandev_metrics_probe_fail');
    expect(failed).toMatchObject({ isError: true, content: [{ text: 'the tool says no' }] });
    expect((await call('kandev_toolport_echo_echo', { message: 'hi' })).isError).toBeFalsy();
    // Refused by agentctl's own argument check: it never reaches a plugin, and agentctl reports it (counted as `refused`, not as an invocation).
    const invalid = await call('kandev_metrics_probe_ok', { n: 'one' });
    expect(resultText(invalid)).toMatch(/^\[INVALID_ARGUMENTS\]/);

    // One call in flight fills the cap of 1: the next one is refused by the backend.
    const aborter = new AbortController();
    const hanging = call('kandev_metrics_probe_hang', {}, aborter.signal);
    const marker = join(pluginFolders(world.dataDir), 'plugin-data', PROBE, 'hang-started');
    await eventually(() => existsSync(marker), 10_000, 'the hang call to reach the plugin');
    const heldFrom = Date.now();
    const busy = await call('kandev_metrics_probe_ok');
    expect(busy.isError).toBe(true);
    expect(resultText(busy)).toMatch(/^\[PLUGIN_BUSY\]/);
    await new Promise((wake) => setTimeout(wake, 200)); // hold the hanging call a measurable while
    aborter.abort();
    await expect(hanging).rejects.toThrow();
    const heldSeconds = (Date.now() - heldFrom) / 1000;
    await eventually(
      async () => {
        const samples = await scrape();
        return samples.get(`toolport_invocations_total{outcome="cancelled",plugin_id="${PROBE}"}`) === 1;
      },
      10_000,
      'the cancelled call to be counted',
    );

    // A crash mid-call is an error; the supervisor restarts the plugin.
    const crashed = await call('kandev_metrics_probe_crash');
    expect(resultText(crashed)).toMatch(/^\[PLUGIN_CRASHED\]/);
    await eventually(
      async () => {
        const record = await api<{ status: string; restart_count: number }>('GET', `/api/v1/plugins/${PROBE}`);
        return record.body.status === 'active' && record.body.restart_count === 1;
      },
      10_000,
      'the probe to be restarted',
    );

    const samples = await scrape();
    const counter = (plugin: string, outcome: string) => samples.get(`toolport_invocations_total{outcome="${outcome}",plugin_id="${plugin}"}`);
    expect({
      success: counter(PROBE, 'success'),
      tool_error: counter(PROBE, 'tool_error'),
      error: counter(PROBE, 'error'),
      cancelled: counter(PROBE, 'cancelled'),
      echo: counter('toolport.echo', 'success'),
      echoFailures: [counter('toolport.echo', 'tool_error'), counter('toolport.echo', 'error'), counter('toolport.echo', 'cancelled')].filter((v) => v),
    }).toEqual({ success: 3, tool_error: 1, error: 2, cancelled: 1, echo: 1, echoFailures: [] });

    // The latency histogram: one observation per counted call, cumulative buckets, and the held call in the sum.
    expect(samples.get(`toolport_invocation_duration_seconds_count{plugin_id="${PROBE}"}`)).toBe(7);
    expect(samples.get(`toolport_invocation_duration_seconds_count{plugin_id="toolport.echo"}`)).toBe(1);
    expect(samples.get(`toolport_invocation_duration_seconds_bucket{le="+Inf",plugin_id="${PROBE}"}`)).toBe(7);
    expect(samples.get(`toolport_invocation_duration_seconds_sum{plugin_id="${PROBE}"}`)).toBeGreaterThanOrEqual(heldSeconds * 0.9);
    const buckets = [...samples.entries()]
      .filter(([key]) => key.startsWith('toolport_invocation_duration_seconds_bucket{') && key.includes(`plugin_id="${PROBE}"`))
      .map(([key, value]) => ({ le: Number(/le="([^"]+)"/.exec(key)![1]), value }))
      .sort((a, b) => a.le - b.le);
    expect(buckets.length).toBeGreaterThan(5);
    expect(buckets.map((b) => b.value)).toEqual([...buckets.map((b) => b.value)].sort((a, b) => a - b));

    // The same calls by tool and code: an error names its §6 code, success and tool_error none.
    const calls = (tool: string, outcome: string, code = '') =>
      samples.get(`toolport_tool_calls_total{code="${code}",outcome="${outcome}",plugin_id="${PROBE}",tool="${tool}"}`);
    expect({
      ok: calls('ok', 'success'),
      fail: calls('fail', 'tool_error'),
      busy: calls('ok', 'error', 'PLUGIN_BUSY'),
      cancelled: calls('hang', 'cancelled', 'CANCELLED'),
      crashed: calls('crash', 'error', 'PLUGIN_CRASHED'),
      echo: samples.get('toolport_tool_calls_total{code="",outcome="success",plugin_id="toolport.echo",tool="echo"}'),
      refused: calls('ok', 'refused', 'INVALID_ARGUMENTS'),
    }).toEqual({ ok: 3, fail: 1, busy: 1, cancelled: 1, crashed: 1, echo: 1, refused: 1 });
    expect(samples.get('toolport_refused_calls_total{code="INVALID_ARGUMENTS"}')).toBe(1);
    const callSamples = [...samples.entries()].filter(([key]) => key.startsWith('toolport_tool_calls_total{'));
    expect(callSamples.reduce((sum, [, value]) => sum + value, 0)).toBe(9);

    // The restart says why the process went down.
    expect(samples.get(`toolport_plugin_restarts_total{plugin_id="${PROBE}",reason="exited"}`)).toBe(1);

    const catalog = await api<{ generation: string; revision: number; tools: unknown[] }>('GET', '/api/v1/catalog');
    expect(samples.get('toolport_catalog_revision{}')).toBe(catalog.body.revision);
    expect(samples.get('toolport_catalog_generation{}')).toBe(Number(catalog.body.generation.slice(0, 12)));
    expect(samples.get('toolport_catalog_generation{}')).toBe(1);
    expect(samples.get('toolport_catalog_tools{}')).toBe(5);
    expect(catalog.body.tools).toHaveLength(5);
    expect(samples.get('toolport_live_sessions{}')).toBe(1);
  }, 60_000);

  it('the gauges follow the state: a stopped session and a disabled plugin', async () => {
    const before = await scrape();
    expect((await api('DELETE', `/api/v1/sessions/${sessionId}`)).status).toBe(204);
    expect((await api('POST', `/api/v1/plugins/${PROBE}/disable`)).status).toBe(200);
    const after = await scrape();
    expect(after.get('toolport_live_sessions{}')).toBe(0);
    expect(after.get('toolport_catalog_tools{}')).toBe(1);
    expect(after.get('toolport_catalog_revision{}')).toBe(before.get('toolport_catalog_revision{}')! + 1);
  }, 30_000);
});
