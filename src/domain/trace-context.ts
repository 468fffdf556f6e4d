/** W3C caps `tracestate` at 32 members; no well-formed trace header comes near this. */
const TRACE_HEADER_LIMIT = 512;

/** The W3C trace context as it travels from hop to hop (`traceparent` and `tracestate` headers). */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/**
 * The trace context in a peer's `{traceparent, tracestate}` fields (an MCP `_meta`, a link
 * payload). A trace context never fails a call: fields that are not short strings are dropped,
 * and the tracer checks the format itself (a malformed one starts a new trace).
 */
export function receivedTraceContext(fields: Record<string, unknown> | undefined): TraceContext | undefined {
  if (fields === undefined) return undefined;
  const traceparent = traceHeader(fields.traceparent);
  if (traceparent === undefined) return undefined;
  const tracestate = traceHeader(fields.tracestate);
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
}

function traceHeader(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= TRACE_HEADER_LIMIT ? value : undefined;
}
