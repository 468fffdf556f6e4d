import { Tracer, type CallSpan, type ToolCallFacts, type TraceContext } from '../../src/application/ports/tracer';
import type { CallOutcome } from '../../src/domain/call-outcome';
import { receivedTraceContext } from '../../src/domain/trace-context';

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

/**
 * A Tracer for use-case tests: every span in the order started, each handing on a traceparent
 * naming it. Like the real one (test/contracts/tracer.contract.ts), a valid incoming context is
 * continued (its trace id and tracestate carried on) and a missing or malformed one starts a
 * trace of its own.
 */
export class RecordingTracer extends Tracer {
  readonly spans: RecordedSpan[] = [];
  private traces = 0;

  startToolCall(parent: TraceContext | undefined, facts?: ToolCallFacts): CallSpan {
    return this.record('tool_call', parent, receivedTraceContext(parent ? { ...parent } : undefined), facts);
  }

  async shutdown(): Promise<void> {}

  private record(kind: RecordedSpan['kind'], parent: TraceContext | undefined, continued: TraceContext | undefined, facts: ToolCallFacts = {}): CallSpan {
    const traceId = continued?.traceparent.split('-')[1] ?? (++this.traces).toString(16).padStart(32, '1');
    const handed: TraceContext = { traceparent: `00-${traceId}-${(this.spans.length + 1).toString(16).padStart(16, '0')}-01` };
    if (continued?.tracestate !== undefined) handed.tracestate = continued.tracestate;
    const span: RecordedSpan = { kind, parent, facts: { ...facts }, ended: null, traceparent: handed.traceparent };
    this.spans.push(span);
    return {
      record: (more) => Object.assign(span.facts, more),
      pluginCall: (childFacts) => this.record('plugin_call', { ...handed }, handed, childFacts),
      context: () => ({ ...handed }),
      end: (outcome, code) => {
        span.ended ??= { outcome, code: code ?? null };
      },
    };
  }
}
