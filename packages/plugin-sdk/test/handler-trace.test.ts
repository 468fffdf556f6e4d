import { Metadata } from '@grpc/grpc-js';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { traceHandler } from '../src/handler-trace';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOST_SPAN = '00f067aa0ba902b7';

function metadata(traceparent?: string): Metadata {
  const m = new Metadata();
  if (traceparent) m.set('traceparent', traceparent);
  m.set('tracestate', 'host=1');
  return m;
}

const answer = (isError: boolean) => async () => ({ text: 'ok', structuredContentJson: '', contentJson: '', isError });

describe('traceHandler (the SDK side of tracing: a span per call, continuing the host trace)', () => {
  afterEach(() => trace.disable());

  it('runs the handler untraced while the plugin registered no tracer provider', async () => {
    const run = jest.fn(answer(false));
    await expect(traceHandler(metadata(`00-${TRACE_ID}-${HOST_SPAN}-01`), 'echo', 'inv-1', new AbortController().signal, run)).resolves.toMatchObject({
      text: 'ok',
    });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('continues the host trace from the metadata in a span with the tool, invocation id and outcome', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    trace.setGlobalTracerProvider(provider);
    await traceHandler(metadata(`00-${TRACE_ID}-${HOST_SPAN}-01`), 'echo', 'inv-1', new AbortController().signal, answer(true));
    await traceHandler(metadata('00-not-a-trace'), 'echo', 'inv-2', new AbortController().signal, answer(false));
    await provider.forceFlush();
    const [continued, fresh] = exporter.getFinishedSpans();
    expect(continued!.spanContext().traceId).toBe(TRACE_ID);
    expect(continued!.parentSpanContext).toMatchObject({ spanId: HOST_SPAN, isRemote: true });
    expect(continued!.spanContext().traceState?.get('host')).toBe('1');
    expect(continued!.kind).toBe(SpanKind.SERVER);
    expect(continued!.attributes).toEqual({
      'toolport.tool': 'echo',
      'toolport.invocation_id': 'inv-1',
      'rpc.system': 'grpc',
      'toolport.outcome': 'tool_error',
    });
    expect(fresh!.parentSpanContext).toBeUndefined();
    expect(fresh!.attributes['toolport.outcome']).toBe('success');
  });
});
