/** W3C caps `tracestate` at 32 members of at most 256 + 256 characters; no well-formed header comes near this. */
const TRACE_HEADER_LIMIT = 512;
const TRACESTATE_MEMBERS = 32;

/** The W3C trace context as it travels from hop to hop (`traceparent` and `tracestate` headers). */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** `version-trace_id-parent_id-flags` (W3C Trace Context level 1, §3.2), lowercase hex. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** A `tracestate` key: simple, or `tenant@system` (§3.3.1.3.1). */
const TRACESTATE_KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
/** A `tracestate` value: printable ASCII except `,` and `=`, not ending in a space (§3.3.1.3.2). */
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * The trace context in a peer's `{traceparent, tracestate}` fields (an MCP `_meta`, a link
 * payload), checked against the W3C formats (docs/operations.md §8). A trace context never
 * fails a call: a `traceparent` that is not well formed is dropped with its `tracestate` (the
 * call starts a new trace), and a malformed `tracestate` alone is dropped. Sampling is the
 * operator's, not the caller's: a kept `traceparent` is handed on as version 00 with the
 * sampled flag set whatever the caller sent, since every call is traced once tracing is on.
 */
export function receivedTraceContext(fields: Record<string, unknown> | undefined): TraceContext | undefined {
  if (fields === undefined) return undefined;
  const traceparent = validTraceparent(fields.traceparent);
  if (traceparent === undefined) return undefined;
  const tracestate = validTracestate(fields.tracestate);
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
}

function validTraceparent(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > TRACE_HEADER_LIMIT) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  if (version === 'ff') return undefined;
  // Version 00 has exactly four fields; a later version may add fields after a dash.
  if (version === '00' && rest !== undefined) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  return `00-${traceId}-${parentId}-01`;
}

function validTracestate(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > TRACE_HEADER_LIMIT) return undefined;
  const members = value
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (members.length === 0 || members.length > TRACESTATE_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    const eq = member.indexOf('=');
    if (eq <= 0) return undefined;
    const key = member.slice(0, eq);
    if (!TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(member.slice(eq + 1)) || keys.has(key)) return undefined;
    keys.add(key);
  }
  return members.join(',');
}
