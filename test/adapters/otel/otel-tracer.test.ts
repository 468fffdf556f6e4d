import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { OtelTracer } from '../../../src/adapters/otel/otel-tracer';
import { SilentTracer } from '../../../src/adapters/memory/silent-tracer';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const INCOMING = { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01`, tracestate: 'vendor=opaque' };

function tracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  // The simple processor hands each span over asynchronously: read them after a flush.
  const finished = async () => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { tracer: new OtelTracer(provider, '1.0.0'), finished };
}

describe('OtelTracer', () => {
  it('continues an incoming trace and hands the next hop a context naming its child span', async () => {
    const { tracer: t, finished } = tracer();
    const span = t.startSpan('mcp.invoke_plugin_tool', INCOMING, { 'toolport.plugin_id': 'acme.tools' });
    const call = span.child('toolport.plugin.v1.Plugin/InvokeAgentTool');
    const next = call.context()!;
    call.end('success');
    span.end('error', 'BAD_RESULT');
    const [child, parent] = await finished();
    expect(parent.spanContext().traceId).toBe(TRACE_ID);
    expect(parent.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(parent.kind).toBe(SpanKind.SERVER);
    expect(parent.attributes).toEqual({ 'toolport.plugin_id': 'acme.tools', 'toolport.outcome': 'error', 'toolport.code': 'BAD_RESULT' });
    expect(parent.status).toEqual({ code: SpanStatusCode.ERROR, message: 'BAD_RESULT' });
    expect(child.kind).toBe(SpanKind.CLIENT);
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(child.status.code).toBe(SpanStatusCode.UNSET);
    expect(next).toEqual({ traceparent: `00-${TRACE_ID}-${child.spanContext().spanId}-01`, tracestate: 'vendor=opaque' });
  });

  it('starts a new trace when the incoming context is missing or malformed', async () => {
    const { tracer: t, finished } = tracer();
    t.startSpan('tools/call', undefined).end('success');
    t.startSpan('tools/call', { traceparent: 'not-a-traceparent' }).end('tool_error');
    const [fresh, afterBad] = await finished();
    expect(fresh.parentSpanContext).toBeUndefined();
    expect(afterBad.parentSpanContext).toBeUndefined();
    expect(fresh.spanContext().traceId).not.toBe(afterBad.spanContext().traceId);
    expect(afterBad.attributes['toolport.outcome']).toBe('tool_error');
    expect(afterBad.attributes['toolport.code']).toBeUndefined();
  });

  it('counts only the first end of a span', async () => {
    const { tracer: t, finished } = tracer();
    const span = t.startSpan('tools/call', undefined);
    span.end('cancelled', 'CANCELLED');
    span.end('success');
    expect((await finished()).map((s) => s.attributes['toolport.outcome'])).toEqual(['cancelled']);
  });

  it('stops within its bound even when the export never finishes', async () => {
    const hanging = { export: () => undefined, shutdown: () => new Promise<void>(() => undefined) };
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: hanging })] });
    const started = Date.now();
    await new OtelTracer(provider, '1.0.0').shutdown(50);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('SilentTracer', () => {
  it('records nothing but hands an incoming context on, so a hop without tracing keeps the trace', () => {
    const t = new SilentTracer();
    expect(t.startSpan('tools/call', undefined).context()).toBeUndefined();
    const span = t.startSpan('tools/call', INCOMING);
    expect(span.child('call').context()).toEqual(INCOMING);
  });
});
