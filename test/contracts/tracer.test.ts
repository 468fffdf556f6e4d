import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { TracedHop } from '../../src/adapters/otel/call-span-names';
import { OtelTracer } from '../../src/adapters/otel/otel-tracer';
import { SilentTracer } from '../../src/adapters/otel/silent-tracer';
import type { ToolCallFacts } from '../../src/application/ports/tracer';
import type { CallOutcome } from '../../src/domain/call-outcome';
import { RecordingTracer } from '../support/recording-tracer';
import { describeTracerContract, type ObservedSpan, type TracerFixture } from './tracer.contract';

/** The facts a span's attributes say (docs/operations.md §8 names them). */
function factsOf(attributes: ReadableSpan['attributes']): ToolCallFacts {
  const facts: ToolCallFacts = {};
  const text = (key: string): string | undefined => (typeof attributes[key] === 'string' ? (attributes[key] as string) : undefined);
  if (text('toolport.invocation_id') !== undefined) facts.invocationId = text('toolport.invocation_id');
  if (text('toolport.plugin_id') !== undefined) facts.pluginId = text('toolport.plugin_id');
  if (text('toolport.tool') !== undefined) facts.tool = text('toolport.tool');
  if (text('gen_ai.tool.name') !== undefined) facts.exposedName = text('gen_ai.tool.name');
  return facts;
}

/** The OpenTelemetry adapter over the SDK's in-memory exporter, as test/adapters/otel does. */
function otel(hop: TracedHop): TracerFixture {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  const finished = async (): Promise<ObservedSpan[]> => {
    await processor.forceFlush();
    return exporter.getFinishedSpans().map((span) => ({
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      parentSpanId: span.parentSpanContext?.spanId,
      facts: factsOf(span.attributes),
      outcome: span.attributes['toolport.outcome'] as CallOutcome,
      code: (span.attributes['toolport.code'] as string | undefined) ?? null,
    }));
  };
  const sink = { processor, resource: resourceFromAttributes({ 'service.name': 'test' }), scope: { name: 'toolport', version: '1.0.0' } };
  return { tracer: new OtelTracer(sink, hop), finished };
}

function recording(): TracerFixture {
  const tracer = new RecordingTracer();
  const idOf = (traceparent: string | undefined, part: 1 | 2): string | undefined => traceparent?.split('-')[part];
  const finished = async (): Promise<ObservedSpan[]> =>
    tracer.spans
      .filter((span) => span.ended !== null)
      .map((span) => ({
        traceId: idOf(span.traceparent, 1)!,
        spanId: idOf(span.traceparent, 2)!,
        parentSpanId: idOf(span.parent?.traceparent, 2),
        facts: span.facts,
        outcome: span.ended!.outcome,
        code: span.ended!.code,
      }));
  return { tracer, finished };
}

describeTracerContract([
  ['OtelTracer (backend hop)', () => otel('backend')],
  ['OtelTracer (agentctl hop)', () => otel('agentctl')],
  ['SilentTracer', () => ({ tracer: new SilentTracer() })],
  ['RecordingTracer (test double)', recording],
]);
