import type { Metadata } from '@grpc/grpc-js';
import type * as OtelApi from '@opentelemetry/api';
import type { InvokeAgentToolResponse } from './generated/toolport/plugin/v1/plugin';

type Api = typeof OtelApi;

const TRACER_NAME = 'toolport-plugin-sdk';
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** undefined: not looked for yet; null: the plugin does not have `@opentelemetry/api`. */
let api: Api | null | undefined;

/**
 * Loaded on the first call only, and only if the plugin can resolve it: `@opentelemetry/api` is
 * an optional peer of the SDK, so a plugin that does not trace pays nothing for it.
 */
function loadApi(): Api | null {
  if (api === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      api = require('@opentelemetry/api') as Api;
    } catch {
      api = null;
    }
  }
  return api;
}

/**
 * Runs one tool call inside a span when the plugin uses OpenTelemetry (it registered a tracer
 * provider): the span continues the host's trace from the gRPC metadata `traceparent` /
 * `tracestate` (W3C trace context) and is the active span while the handler runs, so the handler's
 * own spans are its children. It carries the tool's name, the invocation id and the outcome,
 * never the arguments, the result or an error's message (either may quote a value).
 */
export function traceHandler(
  metadata: Metadata,
  tool: string,
  invocationId: string,
  signal: AbortSignal,
  run: () => Promise<InvokeAgentToolResponse>,
): Promise<InvokeAgentToolResponse> {
  const otel = loadApi();
  const tracer = otel ? registeredTracer(otel) : undefined;
  if (!otel || !tracer) return run();
  const parent = remoteParent(otel, metadata);
  const attributes = { 'toolport.tool': tool, 'toolport.invocation_id': invocationId, 'rpc.system': 'grpc' };
  const span = tracer.startSpan('toolport.plugin.v1.Plugin/InvokeAgentTool', { kind: otel.SpanKind.SERVER, attributes }, parent);
  return otel.context.with(otel.trace.setSpan(parent, span), run).then((response) => {
    const outcome = signal.aborted ? 'cancelled' : response.isError ? 'tool_error' : 'success';
    span.setAttribute('toolport.outcome', outcome);
    span.end();
    return response;
  });
}

/** The tracer of the provider the plugin registered; undefined while it registered none. */
function registeredTracer(otel: Api): OtelApi.Tracer | undefined {
  const provider = otel.trace.getTracerProvider();
  // The API hands out a proxy that delegates only once a provider is registered (duck-typed:
  // the plugin's copy of the API may not be the SDK's).
  const proxy = provider as Partial<OtelApi.ProxyTracerProvider>;
  return typeof proxy.getDelegateTracer === 'function' ? proxy.getDelegateTracer(TRACER_NAME) : provider.getTracer(TRACER_NAME);
}

/** The host's span as the parent, read without the plugin's global propagator (it may have set none). */
function remoteParent(otel: Api, metadata: Metadata): OtelApi.Context {
  const [traceparent] = metadata.get('traceparent');
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!match || match[1] === 'ff' || (match[1] === '00' && match[5] !== undefined)) return otel.ROOT_CONTEXT;
  const [, , traceId, spanId, flags] = match;
  if (!otel.isValidTraceId(traceId) || !otel.isValidSpanId(spanId)) return otel.ROOT_CONTEXT;
  const [tracestate] = metadata.get('tracestate');
  return otel.trace.setSpanContext(otel.ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & otel.TraceFlags.SAMPLED,
    isRemote: true,
    ...(typeof tracestate === 'string' && tracestate !== '' ? { traceState: otel.createTraceState(tracestate) } : {}),
  });
}
