import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import type { Logger } from '../../application/ports/logger';
import type { TracedHop } from './call-span-names';
import { OtelTracer } from './otel-tracer';
import type { OtlpTraceSettings } from './otlp-trace-settings';

export interface OtlpTracingInput {
  settings: Extract<OtlpTraceSettings, { enabled: true }>;
  /** `toolport-backend` or `toolport-agentctl`: it wins over OTEL_SERVICE_NAME (docs/operations.md §8). */
  serviceName: string;
  /** Which tool call this process serves, which names its spans. */
  hop: TracedHop;
  version: string;
  logger: Logger;
}

/**
 * Starts this process's OpenTelemetry export: a batch processor to the OTLP/HTTP exporter of
 * the chosen protocol, which the tracer hands its spans to. The exporter reads the endpoint, headers, timeout, compression and
 * certificates from the standard OTEL_EXPORTER_OTLP_* variables itself. OpenTelemetry's own
 * warnings (a collector that refuses or does not answer) become warn lines of `logger`.
 */
export function startOtlpTracing(input: OtlpTracingInput): OtelTracer {
  const { settings, logger } = input;
  diag.setLogger(
    {
      error: (message, ...args) => logger.warn({ detail: diagDetail(message, args) }, 'OpenTelemetry trace export problem'),
      warn: (message, ...args) => logger.warn({ detail: diagDetail(message, args) }, 'OpenTelemetry trace export problem'),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const exporter = settings.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': input.serviceName, 'service.version': input.version }));
  const processor = new BatchSpanProcessor({ exporter, ...settings.batch });
  logger.info({ protocol: settings.protocol, service_name: input.serviceName }, 'exporting traces over OTLP');
  return new OtelTracer({ processor, resource, scope: { name: 'toolport', version: input.version } }, input.hop);
}

const DETAIL_LIMIT = 500;

/**
 * What an OpenTelemetry warning says. Its components call the logger with their name first and
 * the problem after it, so the text parts and the messages of errors are joined; any other value
 * (a collector's response body) is left out, and the whole is capped.
 */
function diagDetail(message: string, args: unknown[]): string {
  const parts = [message, ...args.flatMap((arg) => (typeof arg === 'string' ? [arg] : arg instanceof Error ? [arg.message] : []))];
  const detail = parts.join(': ');
  return detail.length > DETAIL_LIMIT ? `${detail.slice(0, DETAIL_LIMIT)}…` : detail;
}
