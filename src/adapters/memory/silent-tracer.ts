import { Tracer, type SpanAttributes, type TraceContext, type TraceSpan } from '../../application/ports/tracer';

/**
 * A span that records nothing. It still hands on the context it was started with, so a hop
 * without tracing does not break a trace the hops around it keep.
 */
class SilentSpan implements TraceSpan {
  constructor(private readonly parent: TraceContext | undefined) {}

  setAttributes(_attributes: SpanAttributes): void {}

  child(_name: string, _attributes?: SpanAttributes): TraceSpan {
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
  startSpan(_name: string, parent: TraceContext | undefined, _attributes?: SpanAttributes): TraceSpan {
    return parent === undefined ? ROOTLESS : new SilentSpan(parent);
  }

  async shutdown(): Promise<void> {}
}
