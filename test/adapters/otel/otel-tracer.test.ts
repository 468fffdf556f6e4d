import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { TracedHop } from '../../../src/adapters/otel/call-span-names';
import { OtelTracer } from '../../../src/adapters/otel/otel-tracer';
import { SilentTracer } from '../../../src/adapters/otel/silent-tracer';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const INCOMING = { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01`, tracestate: 'vendor=opaque' };
const FACTS = { invocationId: 'inv-1', pluginId: 'acme.tools', tool: 'add_tag' };
/** FACTS as attributes: what both of the backend's spans carry for the call. */
const FACT_ATTRIBUTES = { 'toolport.invocation_id': 'inv-1', 'toolport.plugin_id': 'acme.tools', 'toolport.tool': 'add_tag' };

const sink = (processor: SpanProcessor) => ({
  processor,
  resource: resourceFromAttributes({ 'service.name': 'test' }),
  scope: { name: 'toolport', version: '1.0.0' },
});

function tracer(hop: TracedHop = 'backend') {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  // The simple processor hands each span over asynchronously: read them after a flush.
  const finished = async () => {
    await processor.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { tracer: new OtelTracer(sink(processor), hop), finished };
}

describe('OtelTracer', () => {
  it("names the backend's span for the link action and its child for the gRPC method, with the call's attributes", async () => {
    const { tracer: t, finished } = tracer('backend');
    const span = t.startToolCall(INCOMING, FACTS);
    const call = span.pluginCall(FACTS);
    const next = call.context()!;
    call.end('success');
    span.end('error', 'BAD_RESULT');
    const [child, parent] = await finished();
    expect(parent.name).toBe('mcp.invoke_plugin_tool');
    expect(parent.spanContext().traceId).toBe(TRACE_ID);
    expect(parent.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(parent.kind).toBe(SpanKind.SERVER);
    expect(parent.attributes).toEqual({ ...FACT_ATTRIBUTES, 'toolport.outcome': 'error', 'toolport.code': 'BAD_RESULT' });
    expect(parent.status).toEqual({ code: SpanStatusCode.ERROR, message: 'BAD_RESULT' });
    expect(child.name).toBe('toolport.plugin.v1.Plugin/InvokeAgentTool');
    expect(child.kind).toBe(SpanKind.CLIENT);
    expect(child.attributes).toEqual({ ...FACT_ATTRIBUTES, 'rpc.system': 'grpc', 'toolport.outcome': 'success' });
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(child.status.code).toBe(SpanStatusCode.UNSET);
    expect(next).toEqual({ traceparent: `00-${TRACE_ID}-${child.spanContext().spanId}-01`, tracestate: 'vendor=opaque' });
  });

  it("names agentctl's span for the MCP method, with what it learns of the tool as it goes", async () => {
    const { tracer: t, finished } = tracer('agentctl');
    const span = t.startToolCall(undefined);
    span.record({ pluginId: 'acme.tools', tool: 'add_tag', exposedName: 'kandev_acme_tools_add_tag' });
    span.record({ invocationId: 'inv-2' });
    span.end('tool_error');
    const [only] = await finished();
    expect(only!.name).toBe('tools/call');
    expect(only!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'toolport.plugin_id': 'acme.tools',
      'toolport.tool': 'add_tag',
      'gen_ai.tool.name': 'kandev_acme_tools_add_tag',
      'toolport.invocation_id': 'inv-2',
      'toolport.outcome': 'tool_error',
    });
  });

  it('starts a new trace when the incoming context is missing or malformed', async () => {
    const { tracer: t, finished } = tracer();
    t.startToolCall(undefined).end('success');
    t.startToolCall({ traceparent: 'not-a-traceparent' }).end('tool_error');
    const [fresh, afterBad] = await finished();
    expect(fresh!.parentSpanContext).toBeUndefined();
    expect(afterBad!.parentSpanContext).toBeUndefined();
    expect(fresh!.spanContext().traceId).not.toBe(afterBad!.spanContext().traceId);
    expect(afterBad!.attributes['toolport.outcome']).toBe('tool_error');
    expect(afterBad!.attributes['toolport.code']).toBeUndefined();
  });

  it('counts only the first end of a span', async () => {
    const { tracer: t, finished } = tracer();
    const span = t.startToolCall(undefined);
    span.end('cancelled', 'CANCELLED');
    span.end('success');
    expect((await finished()).map((s) => s.attributes['toolport.outcome'])).toEqual(['cancelled']);
  });

  it('stops within its bound even when the export never finishes', async () => {
    const hanging = { export: () => undefined, shutdown: () => new Promise<void>(() => undefined) };
    const started = Date.now();
    await new OtelTracer(sink(new SimpleSpanProcessor({ exporter: hanging })), 'backend').shutdown(50);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('SilentTracer', () => {
  it('records nothing but hands an incoming context on, so a hop without tracing keeps the trace', () => {
    const t = new SilentTracer();
    expect(t.startToolCall(undefined).context()).toBeUndefined();
    const span = t.startToolCall(INCOMING, FACTS);
    expect(span.pluginCall(FACTS).context()).toEqual(INCOMING);
  });
});
