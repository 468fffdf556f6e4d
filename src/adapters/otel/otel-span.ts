import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type HrTime, type Link, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import { addHrTimes, hrTimeDuration, millisToHrTime, TraceState, type InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';
import type { CallSpan, ToolCallFacts, TraceContext } from '../../application/ports/tracer';
import type { CallOutcome } from '../../domain/call-outcome';
import { receivedTraceContext } from '../../domain/trace-context';
import { factAttributes, pluginCallSpan, type SpanStart } from './call-span-names';
import { newSpanId, newTraceId } from './span-ids';

/** Where a process's finished spans go, and what they all say about where they come from. */
export interface SpanSink {
  /** The batch processor in front of the OTLP exporter (a simple one in tests). */
  processor: SpanProcessor;
  resource: Resource;
  scope: InstrumentationScope;
}

const NONE: never[] = [];
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };

/** The trace a span belongs to: its id and the `tracestate` it came with, handed on unchanged. */
interface Trace {
  traceId: string;
  /** As received (checked by the domain), and as the exporter reads it. */
  tracestate: string | undefined;
  traceState: TraceState | undefined;
}

/** The parent named by an incoming context, when there is a well-formed one. */
interface Parent {
  trace: Trace;
  context: SpanContext;
}

/**
 * The trace an incoming W3C context names; undefined (a new trace) when it is missing or
 * malformed, by the same checks as every other hop's (docs/operations.md §8).
 */
export function remoteParent(parent: TraceContext | undefined): Parent | undefined {
  const checked = parent === undefined ? undefined : receivedTraceContext({ traceparent: parent.traceparent, tracestate: parent.tracestate });
  if (checked === undefined) return undefined;
  // `00-<trace id>-<parent id>-01`, as the check hands it on.
  const traceId = checked.traceparent.slice(3, 35);
  const traceState = checked.tracestate === undefined ? undefined : new TraceState(checked.tracestate);
  const trace = { traceId, tracestate: checked.tracestate, traceState };
  return { trace, context: { traceId, spanId: checked.traceparent.slice(36, 52), traceFlags: TraceFlags.SAMPLED, isRemote: true, traceState } };
}

/**
 * One span of a tool call, recorded as the OpenTelemetry exporter reads it (its
 * `ReadableSpan`) and handed to the span processor when it ends. Toolport's spans need no
 * more than that: no context manager, no sampler (every call is traced once tracing is on,
 * docs/operations.md §8), no events or links, a handful of string attributes. So this is all
 * a span costs: two ids, two clock reads and the attributes (bench/PROFILE.md, "Tracing").
 */
export class OtelSpan implements CallSpan, ReadableSpan {
  readonly attributes: Attributes;
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  duration: HrTime = [0, 0];
  status: SpanStatus = UNSET;
  ended = false;
  readonly links: Link[] = NONE;
  readonly events: TimedEvent[] = NONE;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly name: string;
  private readonly ownContext: SpanContext;
  /** `performance.now()` at the start: the duration is measured on the monotonic clock. */
  private readonly startedAt: number;

  constructor(
    private readonly sink: SpanSink,
    start: SpanStart,
    readonly kind: SpanKind,
    private readonly trace: Trace,
    readonly parentSpanContext: SpanContext | undefined,
  ) {
    this.name = start.name;
    this.attributes = start.attributes;
    this.resource = sink.resource;
    this.instrumentationScope = sink.scope;
    this.ownContext = { traceId: trace.traceId, spanId: newSpanId(), traceFlags: TraceFlags.SAMPLED, traceState: trace.traceState };
    // Wall-clock start, as the SDK's spans take it; the end adds the monotonic duration.
    this.startTime = millisToHrTime(Date.now());
    this.startedAt = performance.now();
  }

  /** The span of a call this process serves: a child of `parent`, else the root of a new trace. */
  static serving(sink: SpanSink, start: SpanStart, parent: Parent | undefined): OtelSpan {
    const trace = parent?.trace ?? { traceId: newTraceId(), tracestate: undefined, traceState: undefined };
    return new OtelSpan(sink, start, SpanKind.SERVER, trace, parent?.context);
  }

  spanContext(): SpanContext {
    return this.ownContext;
  }

  record(facts: ToolCallFacts): void {
    if (!this.ended) Object.assign(this.attributes, factAttributes(facts));
  }

  /** The call this span makes to the plugin (kind client). */
  pluginCall(facts: ToolCallFacts): CallSpan {
    return new OtelSpan(this.sink, pluginCallSpan(facts), SpanKind.CLIENT, this.trace, this.ownContext);
  }

  context(): TraceContext | undefined {
    const traceparent = `00-${this.trace.traceId}-${this.ownContext.spanId}-01`;
    return this.trace.tracestate === undefined ? { traceparent } : { traceparent, tracestate: this.trace.tracestate };
  }

  end(outcome: CallOutcome, code?: string | null): void {
    if (this.ended) return;
    this.attributes['toolport.outcome'] = outcome;
    if (code) this.attributes['toolport.code'] = code;
    // A plugin's own error result is an answer: only a failed hop marks the span as failed.
    if (outcome === 'error') this.status = code ? { code: SpanStatusCode.ERROR, message: code } : { code: SpanStatusCode.ERROR };
    this.endTime = addHrTimes(this.startTime, millisToHrTime(performance.now() - this.startedAt));
    this.duration = hrTimeDuration(this.startTime, this.endTime);
    this.ended = true;
    this.sink.processor.onEnd(this);
  }
}
