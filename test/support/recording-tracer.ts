import { Tracer, type CallSpan, type ToolCallFacts, type TraceContext } from '../../src/application/ports/tracer';
import type { CallOutcome } from '../../src/domain/call-outcome';

/** A span as the recording tracer kept it. */
export interface RecordedSpan {
  /** The span of the call this process serves, or of the plugin call it makes. */
  kind: 'tool_call' | 'plugin_call';
  /** The context it was started from: the incoming one, or its parent's. */
  parent: TraceContext | undefined;
  /** What it was told about the call, the later value of a fact replacing the earlier. */
  facts: ToolCallFacts;
  ended: { outcome: CallOutcome; code: string | null } | null;
  /** The traceparent it hands the next hop. */
  traceparent: string;
}

/** A Tracer for use-case tests: every span in the order started, each handing on a traceparent naming it. */
export class RecordingTracer extends Tracer {
  readonly spans: RecordedSpan[] = [];

  startToolCall(parent: TraceContext | undefined, facts?: ToolCallFacts): CallSpan {
    return this.record('tool_call', parent, facts);
  }

  async shutdown(): Promise<void> {}

  private record(kind: RecordedSpan['kind'], parent: TraceContext | undefined, facts: ToolCallFacts = {}): CallSpan {
    const index = this.spans.length;
    const span: RecordedSpan = {
      kind,
      parent,
      facts: { ...facts },
      ended: null,
      traceparent: `00-${'1'.repeat(32)}-${index.toString(16).padStart(16, '0')}-01`,
    };
    this.spans.push(span);
    return {
      record: (more) => Object.assign(span.facts, more),
      pluginCall: (childFacts) => this.record('plugin_call', { traceparent: span.traceparent }, childFacts),
      context: () => ({ traceparent: span.traceparent }),
      end: (outcome, code) => {
        span.ended ??= { outcome, code: code ?? null };
      },
    };
  }
}
