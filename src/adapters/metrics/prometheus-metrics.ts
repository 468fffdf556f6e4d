import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CallTotals, ToolCallRecord } from '../../application/invocation/call-events';
import type { PluginFailureCause, PluginStatusEvent } from '../../application/ports/plugin-runtime';
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
  private readonly toolCalls: Counter<'plugin_id' | 'tool' | 'outcome' | 'code'>;
  private readonly restarts: Counter<'plugin_id' | 'reason'>;
  private readonly refused: Counter<'code'>;
  private readonly fanOutFailures: Counter;
  /** Why each instance now restarting went down, until it is back (the restart's `reason`). */
  private readonly downCause = new Map<string, PluginFailureCause>();

  constructor(sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry, prefix: 'toolport_process_' });
    this.invocations = this.counter('toolport_invocations_total', 'Plugin tool calls by plugin and outcome (success, tool_error, error, cancelled).', [
      'plugin_id',
      'outcome',
    ]);
    this.latency = new Histogram({
      name: 'toolport_invocation_duration_seconds',
      help: 'Backend-side duration of plugin tool calls, checks included.',
      labelNames: ['plugin_id'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.toolCalls = this.counter(
      'toolport_tool_calls_total',
      'Tool calls by plugin, plugin-local tool name, outcome (success, tool_error, error, cancelled, refused) and code (empty for success and tool_error; a refused call naming no listed tool has empty plugin_id and tool).',
      ['plugin_id', 'tool', 'outcome', 'code'],
    );
    this.restarts = this.counter(
      'toolport_plugin_restarts_total',
      'Plugin processes restarted by the supervisor, by why the process went down (exited, unhealthy, start_failed).',
      ['plugin_id', 'reason'],
    );
    this.refused = this.counter('toolport_refused_calls_total', 'Tool calls agentctl refused itself and never sent (NOT_FOUND, INVALID_ARGUMENTS), by code.', [
      'code',
    ]);
    this.fanOutFailures = this.counter('toolport_fanout_failures_total', 'Catalog pushes to an agentctl that failed (each is retried).', []);
    this.gauge('toolport_catalog_revision', 'Revision of the current catalog snapshot.', () => sources.catalog().revision);
    this.gauge('toolport_catalog_generation', 'Boot counter part of the current catalog generation.', () =>
      Number.parseInt(sources.catalog().generation.slice(0, 12), 10),
    );
    this.gauge('toolport_catalog_tools', 'Tools in the current catalog snapshot.', () => sources.catalog().tools.length);
    this.gauge('toolport_live_sessions', 'Sessions whose agentctl is starting or live.', () => sources.liveSessions());
  }

  /** A counter of this registry, fed where its events happen. */
  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge of this registry, set from `read` at every scrape. */
  private gauge(name: string, help: string, read: () => number | Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  recordCall(call: ToolCallRecord): void {
    if (call.outcome === 'refused') {
      // Never sent to a plugin: no invocation, no latency.
      this.refused.inc({ code: call.code ?? '' });
      this.toolCalls.inc({ plugin_id: call.pluginId, tool: call.localName, outcome: call.outcome, code: call.code ?? '' });
      return;
    }
    this.invocations.inc({ plugin_id: call.pluginId, outcome: call.outcome });
    this.toolCalls.inc({ plugin_id: call.pluginId, tool: call.localName, outcome: call.outcome, code: call.code ?? '' });
    this.latency.observe({ plugin_id: call.pluginId }, call.durationMs / 1000);
  }

  /**
   * Follows the supervision of an instance: a restart is counted when it is active again, with
   * the cause that took it down first (a restart that failed on the way does not change it).
   */
  recordStatus(event: PluginStatusEvent): void {
    const { instanceId, pluginId } = event.instance;
    if (event.status === 'error') {
      if (!this.downCause.has(instanceId)) this.downCause.set(instanceId, event.cause ?? 'exited');
      if (event.gaveUp) this.downCause.delete(instanceId);
      return;
    }
    const cause = this.downCause.get(instanceId);
    this.downCause.delete(instanceId);
    if (event.status === 'active' && cause) this.restarts.inc({ plugin_id: pluginId, reason: cause });
  }

  /** The calls counted so far, by outcome and by failure code: what the console's overview shows. */
  async callTotals(): Promise<CallTotals> {
    const totals: CallTotals = { total: 0, byOutcome: { success: 0, tool_error: 0, error: 0, cancelled: 0, refused: 0 }, byCode: {} };
    for (const { labels, value } of (await this.toolCalls.get()).values) {
      totals.total += value;
      const outcome = String(labels.outcome) as keyof CallTotals['byOutcome'];
      totals.byOutcome[outcome] = (totals.byOutcome[outcome] ?? 0) + value;
      if (labels.code) totals.byCode[String(labels.code)] = (totals.byCode[String(labels.code)] ?? 0) + value;
    }
    return totals;
  }

  recordFanOutFailure(): void {
    this.fanOutFailures.inc();
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
