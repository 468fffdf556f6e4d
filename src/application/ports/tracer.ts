import type { CallOutcome } from '../../domain/call-outcome';
import type { TraceContext } from '../../domain/trace-context';

export type { TraceContext };

/** What a span says about its tool call: ids and names only, never an argument or a result. */
export interface ToolCallFacts {
  /** The backend's id of the call. */
  invocationId?: string;
  pluginId?: string;
  /** The tool's local name (its plugin's own), or a built-in's name. */
  tool?: string;
  /** The name the agent called it by. */
  exposedName?: string;
  /** The catalog revision the backend's checks ran at. */
  catalogRevision?: number;
  /** Who let the call through when an approval rule held it (docs/approvals.md): `none`, `client`, `operator`. */
  approval?: string;
  /** For `operator`, who approved it. */
  approvedBy?: string;
}

/** The timed span of one tool call, or of the plugin call it makes, inside a trace. */
export interface CallSpan {
  /** Adds what became known about the call; a later value of a fact replaces the earlier one. */
  record(facts: ToolCallFacts): void;
  /** Starts the span of the one plugin call this call makes (a child of this one). */
  pluginCall(facts: ToolCallFacts): CallSpan;
  /**
   * The context to hand the next hop so its spans become children of this one; undefined when
   * there is nothing to hand on (no tracing here and no context came in).
   */
  context(): TraceContext | undefined;
  /** Ends the span with the call's outcome and, for a failure, its code. Only the first call counts. */
  end(outcome: CallOutcome, code?: string | null): void;
}

/**
 * Where a process's spans go. Each process serves a tool call at its own hop (the agent's
 * call at agentctl, the link's at the backend); the adapter names the spans and their
 * attributes. The default does nothing and costs nothing; the OpenTelemetry adapter exports
 * over OTLP.
 */
export abstract class Tracer {
  /**
   * Starts the span of a tool call this process serves, continuing `parent` (an incoming
   * context); a missing or malformed parent starts a new trace. Never throws.
   */
  abstract startToolCall(parent: TraceContext | undefined, facts?: ToolCallFacts): CallSpan;

  /** Exports what is still buffered and stops; waits at most `timeoutMs`, never throws. Idempotent. */
  abstract shutdown(timeoutMs: number): Promise<void>;
}
