import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ToolCallRecord } from '../../application/invocation/call-events';
import type { CatalogSnapshot } from '../../domain/catalog';

export interface MetricsSources {
  catalog(): CatalogSnapshot;
  liveSessions(): Promise<number>;
}

/**
 * The backend's Prometheus metrics (`GET /metrics`). Counters are fed where events happen;
 * gauges are read from the current state at scrape time, so they can never drift.
 */
export class PrometheusMetrics {
  readonly registry = new Registry();
  private readonly invocations: Counter<'plugin_id' | 'outcome'>;
  private readonly latency: Histogram<'plugin_id'>;
  private readonly restarts: Counter<'plugin_id'>;
  private readonly fanOutFailures: Counter;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'toolport_process_' });
    this.invocations = new Counter({
      name: 'toolport_invocations_total',
      help: 'Plugin tool calls by plugin and outcome (success, tool_error, error, cancelled).',
      labelNames: ['plugin_id', 'outcome'],
      registers,
    });
    this.latency = new Histogram({
      name: 'toolport_invocation_duration_seconds',
      help: 'Backend-side duration of plugin tool calls, checks included.',
      labelNames: ['plugin_id'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.restarts = new Counter({ name: 'toolport_plugin_restarts_total', help: 'Plugin process restarts by the supervisor.', labelNames: ['plugin_id'], registers });
    this.fanOutFailures = new Counter({ name: 'toolport_fanout_failures_total', help: 'Catalog pushes to an agentctl that failed (each is retried).', registers });
    new Gauge({
      name: 'toolport_catalog_revision',
      help: 'Revision of the current catalog snapshot.',
      registers,
      collect() {
        this.set(sources.catalog().revision);
      },
    });
    new Gauge({
      name: 'toolport_catalog_generation',
      help: 'Boot counter part of the current catalog generation.',
      registers,
      collect() {
        this.set(Number.parseInt(sources.catalog().generation.slice(0, 12), 10));
      },
    });
    new Gauge({
      name: 'toolport_catalog_tools',
      help: 'Tools in the current catalog snapshot.',
      registers,
      collect() {
        this.set(sources.catalog().tools.length);
      },
    });
    new Gauge({
      name: 'toolport_live_sessions',
      help: 'Sessions whose agentctl is starting or live.',
      registers,
      async collect() {
        this.set(await sources.liveSessions());
      },
    });
  }

  recordCall(call: ToolCallRecord): void {
    this.invocations.inc({ plugin_id: call.pluginId, outcome: call.outcome });
    this.latency.observe({ plugin_id: call.pluginId }, call.durationMs / 1000);
  }

  recordRestart(pluginId: string): void {
    this.restarts.inc({ plugin_id: pluginId });
  }

  recordFanOutFailure(): void {
    this.fanOutFailures.inc();
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
