import { Tracer, type SpanAttributes, type TraceContext, type TraceSpan } from '../../src/application/ports/tracer';
import type { CallOutcome } from '../../src/domain/call-outcome';

/** A span as the recording tracer kept it. */
export interface RecordedSpan {
  name: string;
  /** The context it was started from: the incoming one, or its parent's. */
  parent: TraceContext | undefined;
  attributes: SpanAttributes;
  ended: { outcome: CallOutcome; code: string | null } | null;
  /** The traceparent it hands the next hop. */
  traceparent: string;
}

/** A Tracer for use-case tests: every span in the order started, each handing on a traceparent naming it. */
export class RecordingTracer extends Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, parent: TraceContext | undefined, attributes?: SpanAttributes): TraceSpan {
    return this.record(name, parent, attributes);
  }

  async shutdown(): Promise<void> {}

  private record(name: string, parent: TraceContext | undefined, attributes: SpanAttributes = {}): TraceSpan {
    const index = this.spans.length;
    const span: RecordedSpan = {
      name,
      parent,
      attributes: { ...attributes },
      ended: null,
      traceparent: `00-${'1'.repeat(32)}-${index.toString(16).padStart(16, '0')}-01`,
    };
    this.spans.push(span);
    return {
      setAttributes: (more) => Object.assign(span.attributes, more),
      child: (childName, childAttributes) => this.record(childName, { traceparent: span.traceparent }, childAttributes),
      context: () => ({ traceparent: span.traceparent }),
      end: (outcome, code) => {
        span.ended ??= { outcome, code: code ?? null };
      },
    };
  }
}
