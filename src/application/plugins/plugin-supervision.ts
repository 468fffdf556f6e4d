import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginRuntime, PluginStatusEvent } from '../ports/plugin-runtime';
import type { PluginStore } from '../ports/plugin-store';
import type { CatalogService } from '../catalog/catalog-service';
import type { RunningPlugins } from './running-plugins';

/**
 * Follows the runtime's supervision: when the instance serving a plugin crashes, recovers or
 * gives up, its record (status, last_error, restart_count) and the catalog follow at once.
 * Events of superseded instances (an upgrade's old one, a disabled one) are ignored, and so
 * is `stopped`, which only lifecycle operations and shutdown cause.
 */
export class PluginSupervision {
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly runtime: PluginRuntime,
    private readonly running: RunningPlugins,
    private readonly store: PluginStore,
    private readonly catalog: CatalogService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Starts following status events; idempotent. */
  execute(): void {
    this.unsubscribe ??= this.runtime.onStatus((event) => this.apply(event));
  }

  /** Stops following status events (shutdown). */
  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private apply(event: PluginStatusEvent): void {
    if (event.status === 'stopped' || !this.running.isCurrent(event.instance)) return;
    const record = this.store.getPlugin(event.instance.pluginId);
    if (!record || record.version !== event.instance.version) return;
    this.store.savePlugin({
      ...record,
      status: event.status,
      last_error: event.status === 'error' ? event.reason : record.last_error,
      restart_count: event.restartCount,
      updated_at: this.clock.isoNow(),
    });
    this.catalog.recompute();
    const fields = { plugin_id: record.id, version: record.version, restart_count: event.restartCount, gave_up: event.gaveUp, reason: event.reason };
    if (event.status === 'error') this.logger.warn(fields, 'plugin went to error');
    else this.logger.info(fields, 'plugin active again');
  }
}
