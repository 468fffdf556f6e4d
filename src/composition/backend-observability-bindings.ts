import { join } from 'node:path';
import type { Container } from 'inversify';
import { FilePluginLogs } from '../adapters/log-files/file-plugin-logs';
import { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics';
import { PinoLogger } from '../adapters/pino/pino-logger';
import { pluginRecordTee } from '../adapters/pino/plugin-record-tee';
import { CatalogService } from '../application/catalog/catalog-service';
import { CallEvents } from '../application/invocation/call-events';
import type { Logger } from '../application/ports/logger';
import { PluginLogs } from '../application/ports/plugin-logs';
import { PluginRuntime } from '../application/ports/plugin-runtime';
import { SessionStore } from '../application/ports/session-store';
import { Tracer } from '../application/ports/tracer';
import type { Disposals } from './disposals';
import type { ServeOptions } from './serve-options';
import { startTracing, TRACE_FLUSH_MS } from './tracing';

/** The backend's logger and each plugin's logs (in memory and in `<data-dir>/logs`). */
export interface BackendLogs {
  logger: Logger;
  pluginLogs: FilePluginLogs;
}

/** Every record naming a plugin is also kept in that plugin's log: the logger is teed into the plugin logs. */
export function openBackendLogs(options: ServeOptions, dataDir: string): BackendLogs {
  const pluginLogs = new FilePluginLogs(join(dataDir, 'logs'));
  const { settings } = options;
  const logger = options.logger ?? PinoLogger.toStderr(settings.logLevel, { role: 'backend' }, { format: options.logFormat, tee: pluginRecordTee(pluginLogs) });
  return { logger, pluginLogs };
}

/**
 * What the backend tells about itself: the plugin logs, the spans of tool calls (OTLP when an
 * endpoint is set, docs/operations.md §8) and the Prometheus metrics fed by the calls and the
 * plugins' status (§7). The last spans go out after every call has ended, the plugin logs
 * close after that.
 */
export async function observabilityAdapters(options: ServeOptions, logs: BackendLogs, disposals: Disposals): Promise<(c: Container) => void> {
  disposals.add('plugin logs', () => logs.pluginLogs.close());
  const tracer = await startTracing(options.env, 'toolport-backend', logs.logger);
  disposals.add('traces', () => tracer.shutdown(TRACE_FLUSH_MS));
  return (c) => {
    c.bind(PluginLogs).toConstantValue(logs.pluginLogs);
    c.bind(Tracer).toConstantValue(tracer);
    c.bind(PrometheusMetrics).toResolvedValue(
      (catalog: CatalogService, sessions: SessionStore, calls: CallEvents, runtime: PluginRuntime) => {
        const metrics = new PrometheusMetrics({
          catalog: () => catalog.current(),
          liveSessions: async () => (await sessions.listSessions()).filter((s) => s.status === 'live' || s.status === 'starting').length,
        });
        calls.onCall((call) => metrics.recordCall(call));
        runtime.onStatus((event) => metrics.recordStatus(event));
        return metrics;
      },
      [CatalogService, SessionStore, CallEvents, PluginRuntime],
    );
  };
}
