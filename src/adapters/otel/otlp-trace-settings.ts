/** The OTLP protocols this build exports traces with (`grpc` would need another exporter package). */
export type OtlpProtocol = 'http/json' | 'http/protobuf';

/** The batch span processor's knobs, from the standard `OTEL_BSP_*` variables. */
export interface BatchSettings {
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
}

export type OtlpTraceSettings = { enabled: false; problem?: string } | { enabled: true; protocol: OtlpProtocol; batch: BatchSettings };

const BATCH_VARIABLES: Record<keyof BatchSettings, string> = {
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
  exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
};

/**
 * Whether this process exports spans (docs/operations.md §8): only when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, so an unset variable never means the
 * OpenTelemetry default endpoint. `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none`
 * turn it off as they do for any OpenTelemetry SDK. Read without loading the SDK, so tracing
 * off costs no start-up time. A setting it cannot honour is a `problem` to log, never a crash.
 */
export function otlpTraceSettings(env: NodeJS.ProcessEnv): OtlpTraceSettings {
  if (!present(env.OTEL_EXPORTER_OTLP_ENDPOINT) && !present(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return { enabled: false };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { enabled: false };
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return { enabled: false };
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  if (protocol !== 'http/json' && protocol !== 'http/protobuf') {
    return {
      enabled: false,
      problem: `OTEL_EXPORTER_OTLP_PROTOCOL ${JSON.stringify(protocol)} is not supported (use http/protobuf or http/json); traces are off`,
    };
  }
  const batch: BatchSettings = {};
  for (const [key, name] of Object.entries(BATCH_VARIABLES) as [keyof BatchSettings, string][]) {
    const raw = env[name];
    if (!present(raw)) continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) return { enabled: false, problem: `${name} must be a whole number, not ${JSON.stringify(raw)}; traces are off` };
    batch[key] = value;
  }
  return { enabled: true, protocol, batch };
}

function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
