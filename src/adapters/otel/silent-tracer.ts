import { Tracer, type CallSpan, type ToolCallFacts, type TraceContext } from '../../application/ports/tracer';

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

/** The Tracer when no OTLP endpoint is configured: no SDK, no exporter, no allocation for a call without a context. */
export class SilentTracer extends Tracer {
  startToolCall(parent: TraceContext | undefined, _facts?: ToolCallFacts): CallSpan {
    return parent === undefined ? ROOTLESS : new SilentSpan(parent);
  }

  async shutdown(): Promise<void> {}
}
