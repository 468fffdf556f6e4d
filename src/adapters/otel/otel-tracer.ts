import { Tracer, type CallSpan, type ToolCallFacts, type TraceContext } from '../../application/ports/tracer';
import { toolCallSpan, type TracedHop } from './call-span-names';
import { OtelSpan, remoteParent, type SpanSink } from './otel-span';

/**
 * The Tracer over an OpenTelemetry span processor of this process's own: nothing is
 * registered globally, so it serves Toolport's spans only and goes away with shutdown().
 * Spans are made here (OtelSpan) and handed to the processor, which batches them for the
 * OTLP exporter; the SDK's general-purpose tracer is not on a call's path.
 */
export class OtelTracer extends Tracer {
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly sink: SpanSink,
    private readonly hop: TracedHop,
  ) {
    super();
  }

  /** The work this process serves for a caller (kind server). */
  startToolCall(parent: TraceContext | undefined, facts?: ToolCallFacts): CallSpan {
    return OtelSpan.serving(this.sink, toolCallSpan(this.hop, facts), remoteParent(parent));
  }

  shutdown(timeoutMs: number): Promise<void> {
    this.stopping ??= new Promise<void>((done) => {
      // A collector that does not answer must not hold up the exit.
      const timer = setTimeout(done, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        done();
      };
      this.sink.processor.shutdown().then(finish, finish);
    });
    return this.stopping;
  }
}
