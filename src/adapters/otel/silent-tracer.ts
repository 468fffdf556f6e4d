import { Tracer, type CallSpan, type ToolCallFacts, type TraceContext } from '../../application/ports/tracer';
import { receivedTraceContext } from '../../domain/trace-context';

/**
 * A span that records nothing. It still hands on the context it was started with, so a hop
 * without tracing does not break a trace the hops around it keep.
 */
class SilentSpan implements CallSpan {
  constructor(private readonly parent: TraceContext | undefined) {}

  record(_facts: ToolCallFacts): void {}

  pluginCall(_facts: ToolCallFacts): CallSpan {
    return this;
  }

  context(): TraceContext | undefined {
    return this.parent;
  }

  end(): void {}
}

const ROOTLESS = new SilentSpan(undefined);

/**
 * The Tracer when no OTLP endpoint is configured: no SDK, no exporter, no allocation for a call
 * without a context. An incoming context is handed on only when it is well formed (docs/operations.md
 * §8), as the OpenTelemetry adapter would continue it; a malformed one starts no trace here.
 */
export class SilentTracer extends Tracer {
  startToolCall(parent: TraceContext | undefined, _facts?: ToolCallFacts): CallSpan {
    const continued = parent === undefined ? undefined : receivedTraceContext({ traceparent: parent.traceparent, tracestate: parent.tracestate });
    return continued === undefined ? ROOTLESS : new SilentSpan(continued);
  }

  async shutdown(): Promise<void> {}
}
