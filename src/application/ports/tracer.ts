import type { CallOutcome } from '../../domain/call-outcome';
import type { TraceContext } from '../../domain/trace-context';

export type { TraceContext };

/** Span attributes: ids, names and §6 words only, never a tool's arguments or results. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** One timed piece of a tool call inside a trace. */
export interface TraceSpan {
  /** Adds attributes (a later value for a key replaces the earlier one). */
  setAttributes(attributes: SpanAttributes): void;
  /** Starts a span whose parent is this one. */
  child(name: string, attributes?: SpanAttributes): TraceSpan;
  /**
   * The context to hand the next hop so its spans become children of this one; undefined when
   * there is nothing to hand on (no tracing here and no context came in).
   */
  context(): TraceContext | undefined;
  /**
   * Ends the span with the call's §6 outcome (`toolport.outcome`) and, for a failure, its code
   * (`toolport.code`). Only the first call counts.
   */
  end(outcome: CallOutcome, code?: string | null): void;
}

/**
 * Where a process's spans go (CONTRACT §11). The default does nothing and costs nothing; the
 * OpenTelemetry adapter exports over OTLP.
 */
export abstract class Tracer {
  /**
   * Starts a span continuing `parent` (an incoming context); a missing or malformed parent
   * starts a new trace. Never throws.
   */
  abstract startSpan(name: string, parent: TraceContext | undefined, attributes?: SpanAttributes): TraceSpan;

  /** Exports what is still buffered and stops; waits at most `timeoutMs`, never throws. Idempotent. */
  abstract shutdown(timeoutMs: number): Promise<void>;
}
