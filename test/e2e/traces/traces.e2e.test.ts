import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { connectSdkClient, type ClientKind, type SdkClient } from '../../agentctl/sdk-clients';
import { eventually } from '../../support/eventually';
import { OtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver';
import { TRACED_PLUGIN_SERVICE, writeTracedPlugin } from '../../support/packages/traced-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';

jest.setTimeout(30_000);

const PLUGIN = 'e2e.traced';
const TOOL = 'kandev_e2e_traced_echo';
const COLLECTOR_HEADER = 'x-collector-key';
const PLUGIN_CALL = 'toolport.plugin.v1.Plugin/InvokeAgentTool';

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** The spans of one trace once all four hops' spans have arrived: agentctl, backend, its plugin call, the plugin. */
async function traceOf(receiver: OtlpReceiver, traceId: string): Promise<Record<'agentctl' | 'backend' | 'pluginCall' | 'plugin', ReceivedSpan>> {
  return eventually(
    () => {
      const spans = receiver.spans().filter((span) => span.traceId === traceId);
      const agentctl = spans.find((s) => s.service === 'toolport-agentctl');
      const backend = spans.find((s) => s.service === 'toolport-backend' && s.name === 'mcp.invoke_plugin_tool');
      const pluginCall = spans.find((s) => s.service === 'toolport-backend' && s.name === PLUGIN_CALL);
      const plugin = spans.find((s) => s.service === TRACED_PLUGIN_SERVICE);
      return agentctl && backend && pluginCall && plugin && spans.length === 4 ? { agentctl, backend, pluginCall, plugin } : undefined;
    },
    10_000,
    `the four spans of trace ${traceId}`,
  );
}

/** Each hop's span is the child of the one before: agent → agentctl → backend → its plugin call → plugin. */
function expectChain(trace: Awaited<ReturnType<typeof traceOf>>, agentSpanId: string): void {
  expect(trace.agentctl.parentSpanId).toBe(agentSpanId);
  expect(trace.backend.parentSpanId).toBe(trace.agentctl.spanId);
  expect(trace.pluginCall.parentSpanId).toBe(trace.backend.spanId);
  expect(trace.plugin.parentSpanId).toBe(trace.pluginCall.spanId);
}

describe('traces: one trace per tool call across agentctl, backend and plugin (docs/operations.md §8)', () => {
  const receiver = new OtlpReceiver();
  const world = new BackendWorld(['--plugin-start-timeout-ms', '10000']);
  const clients: SdkClient[] = [];
  let session: StartedSession;
  const canary = `canary-${hex(8)}`;

  const client = async (kind: ClientKind): Promise<SdkClient> => {
    const connected = await connectSdkClient(kind, { http: session.mcp!.url, token: session.mcp!.token });
    clients.push(connected);
    return connected;
  };

  beforeAll(async () => {
    await receiver.start();
    await world.start({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: `${COLLECTOR_HEADER}=e2e-collector-key`,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
    await world.install(writeTracedPlugin(join(world.root, 'pkg-traced'), PLUGIN), ['network']);
    session = await world.session('kanban-task');
  }, 60_000);

  afterAll(async () => {
    for (const connected of clients) await connected.close().catch(() => undefined);
    expect(await world.teardown()).toEqual([]);
    await receiver.close();
  }, 30_000);

  it('continues the agent traceparent from _meta through every hop, with the call attributes on each span', async () => {
    const traceId = hex(16);
    const agentSpanId = hex(8);
    const v1 = await client('v1');
    const answer = await v1.callTool(TOOL, { s: canary }, undefined, { traceparent: `00-${traceId}-${agentSpanId}-01`, tracestate: 'e2e=1' });
    expect(answer.content[0]?.text).toBe(`echo ${canary}`);

    const trace = await traceOf(receiver, traceId);
    expectChain(trace, agentSpanId);
    const invocationId = trace.backend.attributes['toolport.invocation_id'];
    expect(invocationId).toEqual(expect.any(String));
    const call = { 'toolport.plugin_id': PLUGIN, 'toolport.tool': 'echo', 'toolport.invocation_id': invocationId, 'toolport.outcome': 'success' };
    expect(trace.agentctl.attributes).toMatchObject({ ...call, 'gen_ai.tool.name': TOOL });
    expect(trace.backend.attributes).toMatchObject(call);
    expect(trace.pluginCall.attributes).toMatchObject(call);
    expect(trace.plugin.attributes).toMatchObject({ 'toolport.tool': 'echo', 'toolport.invocation_id': invocationId, 'toolport.outcome': 'success' });
    for (const span of Object.values(trace)) expect(span.attributes['toolport.code']).toBeUndefined();
  });

  it('continues a traceparent from _meta of a 2026-07-28 request as well', async () => {
    const traceId = hex(16);
    const agentSpanId = hex(8);
    const modern = await client('v2 pinned 2026-07-28');
    expect(modern.revision()).toBe('2026-07-28');
    const answer = await modern.callTool(TOOL, { s: canary }, undefined, { traceparent: `00-${traceId}-${agentSpanId}-01` });
    expect(answer.content[0]?.text).toBe(`echo ${canary}`);
    expectChain(await traceOf(receiver, traceId), agentSpanId);
  });

  it('starts one trace at agentctl for a call without a traceparent, still across every hop', async () => {
    const v1 = await client('v1');
    const before = new Set(receiver.spans().map((span) => span.traceId));
    expect((await v1.callTool(TOOL, { s: canary })).content[0]?.text).toBe(`echo ${canary}`);
    const root = await eventually(
      () => receiver.spans().find((s) => s.service === 'toolport-agentctl' && s.parentSpanId === '' && !before.has(s.traceId)),
      10_000,
      'a new agentctl root span',
    );
    expectChain(await traceOf(receiver, root.traceId), '');
  });

  it("records a call whose agent asked for sampled=00 (sampling is the operator's), and never fails a call for a malformed trace context", async () => {
    const v1 = await client('v1');
    // An agent that would keep its calls out of the operator's traces (issue 25).
    const traceId = hex(16);
    const agentSpanId = hex(8);
    const unsampled = await v1.callTool(TOOL, { s: canary }, undefined, { traceparent: `00-${traceId}-${agentSpanId}-00` });
    expect(unsampled.content[0]?.text).toBe(`echo ${canary}`);
    expectChain(await traceOf(receiver, traceId), agentSpanId);

    // Values no W3C parser takes: each is dropped, and the call is answered as any other.
    const malformed: Array<Record<string, unknown>> = [
      { traceparent: `00-${hex(16)}-${hex(8)}-01-extra`, tracestate: 'e2e=1' },
      { traceparent: `ff-${hex(16)}-${hex(8)}-01` },
      { traceparent: `00-${'0'.repeat(32)}-${hex(8)}-01` },
      { traceparent: 'x'.repeat(600) },
      { traceparent: `00-${hex(16)}-${hex(8)}-01`, tracestate: 'not a list member\u0001' },
      { traceparent: 42 },
    ];
    for (const meta of malformed) {
      const answer = await v1.callTool(TOOL, { s: canary }, undefined, meta);
      expect({ meta, isError: answer.isError ?? false, text: answer.content[0]?.text }).toEqual({ meta, isError: false, text: `echo ${canary}` });
    }
  });

  it('never exports the arguments or the result, and keeps the collector headers from the plugin', async () => {
    await eventually(() => receiver.spans().filter((s) => s.service === TRACED_PLUGIN_SERVICE).length >= 3, 10_000, 'the plugin spans of three calls');
    expect(receiver.exports.length).toBeGreaterThan(0);
    for (const received of receiver.exports) expect(received.body).not.toContain(canary);
    // The backend passes its OTEL_* variables on, but OTEL_EXPORTER_OTLP_HEADERS only to agentctl.
    expect(receiver.servicesSending(COLLECTOR_HEADER)).toEqual(['toolport-agentctl', 'toolport-backend']);
    expect(receiver.spans().some((s) => s.service === TRACED_PLUGIN_SERVICE)).toBe(true);
  });
});
