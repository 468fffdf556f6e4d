import { readPackageVersion } from '../adapters/cli/package-version';
import { SilentTracer } from '../adapters/otel/silent-tracer';
import { otlpTraceSettings } from '../adapters/otel/otlp-trace-settings';
import type { Logger } from '../application/ports/logger';
import type { Tracer } from '../application/ports/tracer';

/**
 * How long shutdown waits for the last spans to reach the collector. An agentctl's goodbye
 * (up to 1 s) and this flush fit in the 3 s its launcher waits before SIGKILL.
 */
export const TRACE_FLUSH_MS = 1000;

/**
 * The process's Tracer (docs/operations.md §8): the OpenTelemetry one when an OTLP endpoint is set,
 * else the silent one. The SDK is loaded only then, so tracing off costs no start-up time.
 */
export async function startTracing(env: NodeJS.ProcessEnv, serviceName: 'toolport-backend' | 'toolport-agentctl', logger: Logger): Promise<Tracer> {
  const settings = otlpTraceSettings(env);
  if (!settings.enabled) {
    if (settings.problem) logger.warn({}, settings.problem);
    return new SilentTracer();
  }
  const { startOtlpTracing } = await import('../adapters/otel/otlp-tracing');
  const hop = serviceName === 'toolport-agentctl' ? 'agentctl' : 'backend';
  return startOtlpTracing({ settings, serviceName, hop, version: readPackageVersion(), logger: logger.child({ component: 'traces' }) });
}
