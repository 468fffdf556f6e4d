import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer as ApiTracer } from '@opentelemetry/api';
import type { CallSpan, ToolCallFacts, TraceContext } from '../../application/ports/tracer';
import type { CallOutcome } from '../../domain/call-outcome';
import { factAttributes, pluginCallSpan } from './call-span-names';
import { CONTEXT_GETTER, CONTEXT_SETTER, W3C_PROPAGATOR } from './w3c-context';

/**
 * A CallSpan over one OpenTelemetry span. Contexts are passed explicitly (never through a
 * global context manager), so no async hook is installed and no other code's work joins a trace.
 */
export class OtelSpan implements CallSpan {
  private ended = false;

  constructor(
    private readonly tracer: ApiTracer,
    private readonly span: Span,
  ) {}

  record(facts: ToolCallFacts): void {
    this.span.setAttributes(factAttributes(facts));
  }

  /** The call this span makes to the plugin (kind client). */
  pluginCall(facts: ToolCallFacts): CallSpan {
    const { name, attributes } = pluginCallSpan(facts);
    return new OtelSpan(this.tracer, this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, this.asParent()));
  }

  context(): TraceContext | undefined {
    const carrier: Partial<TraceContext> = {};
    W3C_PROPAGATOR.inject(this.asParent(), carrier, CONTEXT_SETTER);
    return carrier.traceparent === undefined ? undefined : (carrier as TraceContext);
  }

  end(outcome: CallOutcome, code?: string | null): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttribute('toolport.outcome', outcome);
    if (code) this.span.setAttribute('toolport.code', code);
    // A plugin's own error result is an answer: only a failed hop marks the span as failed.
    if (outcome === 'error') this.span.setStatus({ code: SpanStatusCode.ERROR, message: code ?? undefined });
    this.span.end();
  }

  private asParent(): Context {
    return trace.setSpan(ROOT_CONTEXT, this.span);
  }
}

/** The context an incoming W3C trace context names; the root context (a new trace) when it is missing or malformed. */
export function parentContext(parent: TraceContext | undefined): Context {
  return parent === undefined ? ROOT_CONTEXT : W3C_PROPAGATOR.extract(ROOT_CONTEXT, parent, CONTEXT_GETTER);
}
