import { diag } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { OtelTracer } from '../../../src/adapters/otel/otel-tracer';
import { startOtlpTracing } from '../../../src/adapters/otel/otlp-tracing';
import { CapturingLogger } from '../../support/capturing-logger';
import { OtlpReceiver } from '../../support/otlp-receiver';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const FACTS = { invocationId: 'inv-1', pluginId: 'acme.tools', tool: 'add_tag', catalogRevision: 7 };

/**
 * One backend call (its span and the plugin call's) as the batch processor receives them, and
 * the span id handed to the plugin. (The exporter's own transport loads `http` by a dynamic
 * import jest cannot run; test/e2e/traces exports for real.)
 */
function oneCall(): { spans: ReadableSpan[]; childId: string } {
  const spans: ReadableSpan[] = [];
  const processor = { onEnd: (span: ReadableSpan) => spans.push(span) } as unknown as SpanProcessor;
  const resource = resourceFromAttributes({ 'service.name': 'toolport-backend' });
  const tracer = new OtelTracer({ processor, resource, scope: { name: 'toolport', version: '1.2.3' } }, 'backend');
  const span = tracer.startToolCall({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` }, FACTS);
  const call = span.pluginCall(FACTS);
  const childId = call.context()!.traceparent.split('-')[2]!;
  call.end('success');
  span.end('error', 'PLUGIN_UNAVAILABLE');
  return { spans, childId };
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status: { code?: number; message?: string };
}

describe("the adapter's spans as the OTLP exporter serialises them", () => {
  it('encode to OTLP protobuf with their ids, names, attributes and resource', () => {
    const { spans, childId } = oneCall();
    const bytes = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
    for (const id of [TRACE_ID, PARENT_ID, childId]) expect(bytes.includes(Buffer.from(id, 'hex'))).toBe(true);
    for (const text of [
      'toolport-backend',
      'mcp.invoke_plugin_tool',
      'toolport.plugin.v1.Plugin/InvokeAgentTool',
      'toolport.invocation_id',
      'inv-1',
      'PLUGIN_UNAVAILABLE',
    ]) {
      expect(bytes.includes(Buffer.from(text))).toBe(true);
    }
  });

  it('encode to OTLP JSON: the plugin call a child of the call, the call a child of the incoming context, timed and with its status', () => {
    const { spans, childId } = oneCall();
    const request = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8')) as {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
        scopeSpans: Array<{ scope: { name: string; version: string }; spans: JsonSpan[] }>;
      }>;
    };
    const [resourceSpans] = request.resourceSpans;
    expect(resourceSpans!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'toolport-backend' } });
    const [scopeSpans] = resourceSpans!.scopeSpans;
    expect(scopeSpans!.scope).toMatchObject({ name: 'toolport', version: '1.2.3' });
    const parent = scopeSpans!.spans.find((s) => s.name === 'mcp.invoke_plugin_tool')!;
    const child = scopeSpans!.spans.find((s) => s.name === 'toolport.plugin.v1.Plugin/InvokeAgentTool')!;
    expect(parent).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID, status: { code: 2, message: 'PLUGIN_UNAVAILABLE' } });
    expect(child).toMatchObject({ traceId: TRACE_ID, spanId: childId, parentSpanId: parent.spanId });
    expect(parent.attributes).toContainEqual({ key: 'toolport.catalog_revision', value: { intValue: 7 } });
    for (const span of [parent, child]) {
      const [start, end] = [BigInt(span.startTimeUnixNano), BigInt(span.endTimeUnixNano)];
      // Wall-clock times, within a minute of now, and an end no earlier than the start.
      expect(Number(start / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000);
      expect(end >= start).toBe(true);
    }
  });
});

describe('OtlpReceiver (the collector of the tests and the bench)', () => {
  it('answers a protobuf export with a response the protobuf exporter can read, as a collector does', async () => {
    const receiver = await new OtlpReceiver().start();
    try {
      const response = await fetch(`${receiver.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: ProtobufTraceSerializer.serializeRequest(oneCall().spans)!,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-protobuf');
      const body = new Uint8Array(await response.arrayBuffer());
      expect(() => ProtobufTraceSerializer.deserializeResponse(body)).not.toThrow();
      expect(receiver.exports).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe("startOtlpTracing: OpenTelemetry's own warnings", () => {
  it("log what went wrong after the component's name, with an error's message but no response body", async () => {
    const logger = new CapturingLogger();
    const tracer = startOtlpTracing({
      settings: { enabled: true, protocol: 'http/protobuf', batch: {} },
      serviceName: 'toolport-backend',
      hop: 'backend',
      version: '1.2.3',
      logger,
    });
    try {
      const component = diag.createComponentLogger({ namespace: 'OTLPExportDelegate' });
      component.warn('Export succeeded but could not deserialize response', new Error('Unknown wire type 3'), new Uint8Array(Buffer.from('collector body')));
      component.error('Export failed', new Error('connect ECONNREFUSED 127.0.0.1:4318'));
      expect(logger.withMessage('OpenTelemetry trace export problem').map((record) => [record.level, record.fields.detail])).toEqual([
        ['warn', 'OTLPExportDelegate: Export succeeded but could not deserialize response: Unknown wire type 3'],
        ['warn', 'OTLPExportDelegate: Export failed: connect ECONNREFUSED 127.0.0.1:4318'],
      ]);
    } finally {
      await tracer.shutdown(100);
      diag.disable();
    }
  });
});
