import { PrometheusMetrics } from '../../../src/adapters/metrics/prometheus-metrics';
import type { ToolCallRecord } from '../../../src/application/invocation/call-events';
import type { PluginStatusEvent } from '../../../src/application/ports/plugin-runtime';

const instance = (instanceId: string) => ({ instanceId, pluginId: 'acme.tools', version: '1.0.0', tls: true, pid: () => undefined });
const event = (instanceId: string, status: PluginStatusEvent['status'], extra: Partial<PluginStatusEvent> = {}): PluginStatusEvent => ({
  instance: instance(instanceId),
  status,
  reason: status === 'error' ? 'went down' : null,
  restartCount: 1,
  gaveUp: false,
  ...extra,
});
const call = (outcome: ToolCallRecord['outcome'], code: string | null, localName = 'add_tag'): ToolCallRecord => ({
  invocationId: 'i',
  pluginId: 'acme.tools',
  localName,
  taskId: 't',
  sessionId: 's',
  outcome,
  code,
  startedAt: new Date().toISOString(),
  durationMs: 3,
  catalogRevision: 1,
});

function metrics(): PrometheusMetrics {
  return new PrometheusMetrics({ catalog: () => ({ generation: '000000000001-aaaaaaaa', revision: 1, tools: [] }), liveSessions: async () => 0 });
}

async function sample(m: PrometheusMetrics, line: string): Promise<number | undefined> {
  const found = (await m.render()).body.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.split(' ').at(-1));
}

describe('PrometheusMetrics', () => {
  it('counts a restart once the instance is back, labelled with what took it down first', async () => {
    const m = metrics();
    m.recordStatus(event('a', 'error', { cause: 'unhealthy' }));
    m.recordStatus(event('a', 'error', { cause: 'start_failed', restartCount: 2 }));
    m.recordStatus(event('a', 'active', { restartCount: 2 }));
    m.recordStatus(event('b', 'error', { cause: 'exited' }));
    m.recordStatus(event('b', 'active'));
    expect(await sample(m, 'toolport_plugin_restarts_total{plugin_id="acme.tools",reason="unhealthy"}')).toBe(1);
    expect(await sample(m, 'toolport_plugin_restarts_total{plugin_id="acme.tools",reason="exited"}')).toBe(1);
    expect(await sample(m, 'toolport_plugin_restarts_total{plugin_id="acme.tools",reason="start_failed"}')).toBeUndefined();
  });

  it('counts no restart for an instance stopped while it was down, or one that gave up', async () => {
    const m = metrics();
    m.recordStatus(event('a', 'error', { cause: 'exited' }));
    m.recordStatus(event('a', 'stopped'));
    m.recordStatus(event('b', 'error', { cause: 'exited', gaveUp: true }));
    m.recordStatus(event('c', 'active'));
    expect((await m.render()).body).not.toMatch(/^toolport_plugin_restarts_total\{/m);
  });

  it('counts calls by tool, outcome and code, and totals them for the console', async () => {
    const m = metrics();
    m.recordCall(call('success', null));
    m.recordCall(call('success', null));
    m.recordCall(call('tool_error', null));
    m.recordCall(call('error', 'TOOL_TIMEOUT', 'slow'));
    m.recordCall(call('cancelled', 'CANCELLED'));
    expect(await sample(m, 'toolport_tool_calls_total{plugin_id="acme.tools",tool="add_tag",outcome="success",code=""}')).toBe(2);
    expect(await sample(m, 'toolport_tool_calls_total{plugin_id="acme.tools",tool="slow",outcome="error",code="TOOL_TIMEOUT"}')).toBe(1);
    expect(await m.callTotals()).toEqual({
      total: 5,
      byOutcome: { success: 2, tool_error: 1, error: 1, cancelled: 1, refused: 0 },
      byCode: { TOOL_TIMEOUT: 1, CANCELLED: 1 },
    });
  });

  it('counts refused calls by code, in the totals, with no invocation or latency', async () => {
    const m = metrics();
    m.recordCall({ ...call('refused', 'NOT_FOUND'), pluginId: '', localName: '', exposedName: 'kandev_nope' });
    m.recordCall(call('refused', 'INVALID_ARGUMENTS'));
    m.recordCall(call('refused', 'INVALID_ARGUMENTS'));
    expect(await sample(m, 'toolport_refused_calls_total{code="NOT_FOUND"}')).toBe(1);
    expect(await sample(m, 'toolport_refused_calls_total{code="INVALID_ARGUMENTS"}')).toBe(2);
    expect(await sample(m, 'toolport_tool_calls_total{plugin_id="",tool="",outcome="refused",code="NOT_FOUND"}')).toBe(1);
    expect(await sample(m, 'toolport_tool_calls_total{plugin_id="acme.tools",tool="add_tag",outcome="refused",code="INVALID_ARGUMENTS"}')).toBe(2);
    const body = (await m.render()).body;
    expect(body).not.toMatch(/^toolport_invocations_total\{/m);
    expect(body).not.toMatch(/^toolport_invocation_duration_seconds_count\{/m);
    expect(await m.callTotals()).toEqual({
      total: 3,
      byOutcome: { success: 0, tool_error: 0, error: 0, cancelled: 0, refused: 3 },
      byCode: { NOT_FOUND: 1, INVALID_ARGUMENTS: 2 },
    });
  });
});
