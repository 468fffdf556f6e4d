import type { PluginRecord } from '../../domain/plugin-record';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginRuntime } from '../ports/plugin-runtime';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { findPlugin } from './find-plugin';
import type { RunningPlugins } from './running-plugins';
import { takeDown } from './take-down';

/**
 * Disables a plugin: new calls are refused at once, calls in flight are cancelled
 * (CANCELLED_BY_LIFECYCLE), its tools leave the catalog and its process stops. Disabling a
 * disabled plugin changes and signals nothing.
 */
export class DisablePlugin {
  constructor(
    private readonly runtime: PluginRuntime,
    private readonly running: RunningPlugins,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.locks.run(pluginId, async () => {
      const { runtime, running, catalog, clock, logger } = this;
      const { record, changed } = await catalog.commit(async (tx) => {
        const stored = await findPlugin(tx, pluginId);
        if (stored.status === 'disabled' && !stored.enabled) return { record: stored, changed: false };
        const next: PluginRecord = { ...stored, status: 'disabled', enabled: false, updated_at: clock.isoNow() };
        await tx.savePlugin(next);
        return { record: next, changed: true };
      });
      if (!changed) return record;
      await takeDown(running, runtime, pluginId);
      logger.info({ plugin_id: pluginId }, 'plugin disabled');
      return record;
    });
  }
}
