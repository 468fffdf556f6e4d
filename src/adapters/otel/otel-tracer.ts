import { SpanKind, type Tracer as ApiTracer } from '@opentelemetry/api';
import type { TracerProvider } from '@opentelemetry/sdk-trace';
import { Tracer, type CallSpan, type ToolCallFacts, type TraceContext } from '../../application/ports/tracer';
import { toolCallSpan, type TracedHop } from './call-span-names';
import { OtelSpan, parentContext } from './otel-span';

/**
 * The Tracer over an OpenTelemetry SDK provider of this process's own: nothing is registered
 * globally, so the provider serves Toolport's spans only and goes away with shutdown().
 */
export class OtelTracer extends Tracer {
  private readonly tracer: ApiTracer;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly provider: TracerProvider,
    version: string,
    private readonly hop: TracedHop,
  ) {
    super();
    this.tracer = provider.getTracer('toolport', version);
  }

  /** The work this process serves for a caller (kind server). */
  startToolCall(parent: TraceContext | undefined, facts?: ToolCallFacts): CallSpan {
    const { name, attributes } = toolCallSpan(this.hop, facts);
    return new OtelSpan(this.tracer, this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext(parent)));
  }

  shutdown(timeoutMs: number): Promise<void> {
    this.stopping ??= new Promise<void>((done) => {
      // A collector that does not answer must not hold up the exit.
      const timer = setTimeout(done, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        done();
      };
      this.provider.shutdown().then(finish, finish);
    });
    return this.stopping;
  }
}
