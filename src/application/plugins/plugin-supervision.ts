import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginRuntime, PluginStatusEvent } from '../ports/plugin-runtime';
import type { Replication } from '../ports/replication';
import { errorMessage } from '../shared/error-code';
import type { RunningPlugins } from './running-plugins';

/**
 * Follows the runtime's supervision: when the instance serving a plugin crashes, recovers or
 * gives up, its record (status, last_error, restart_count) and the catalog follow in one
 * commit, in the order the events came. Events of superseded instances (an upgrade's old one,
 * a disabled one) are ignored, and so is `stopped`, which only lifecycle operations and
 * shutdown cause.
 */
export class PluginSupervision {
  private unsubscribe: (() => void) | undefined;
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly runtime: PluginRuntime,
    private readonly running: RunningPlugins,
    private readonly catalog: CatalogService,
    private readonly clock: Clock,
    /** On a store replicas share, a crash or recovery moves this replica's copy, not the desired record. */
    private readonly replication: Replication,
    private readonly logger: Logger,
  ) {}

  /** Starts following status events; idempotent. */
  execute(): void {
    this.unsubscribe ??= this.runtime.onStatus((event) => this.follow(event));
  }

  /** Stops following status events (shutdown); resolves once the last one taken is stored. */
  async dispose(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.applying;
  }

  /** Resolves once every event received so far is stored (for tests). */
  settled(): Promise<void> {
    return this.applying;
  }

  private follow(event: PluginStatusEvent): void {
    if (event.status === 'stopped' || !this.running.isCurrent(event.instance)) return;
    this.applying = this.applying.then(() =>
      this.apply(event).catch((error: unknown) =>
        this.logger.error({ plugin_id: event.instance.pluginId, err: errorMessage(error) }, 'could not store a plugin status change'),
      ),
    );
  }

  private async apply(event: PluginStatusEvent): Promise<void> {
    const { instance } = event;
    const stored = await this.catalog.commit(async (tx) => {
      const record = await tx.getPlugin(instance.pluginId);
      if (!record || record.version !== instance.version) return undefined;
      if (await this.replication.copyMoved(tx, record.id, event.status as 'active' | 'error')) return record;
      const now = this.clock.isoNow();
      const failed = event.status === 'error';
      const next = {
        ...record,
        status: event.status as 'active' | 'error',
        last_error: failed ? event.reason : record.last_error,
        last_error_at: failed ? now : record.last_error_at,
        restart_count: event.restartCount,
        updated_at: now,
      };
      await tx.savePlugin(next);
      return next;
    });
    if (!stored) return;
    const fields = { plugin_id: stored.id, version: stored.version, restart_count: event.restartCount, gave_up: event.gaveUp, reason: event.reason };
    if (event.status === 'error') this.logger.warn(fields, 'plugin went to error');
    else this.logger.info(fields, 'plugin active again');
  }
}
