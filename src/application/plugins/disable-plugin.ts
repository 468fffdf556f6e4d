import type { PluginRecord } from '../../domain/plugin-record';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { findPlugin } from './find-plugin';
import type { PluginProcesses } from './plugin-processes';

/**
 * Disables a plugin: new calls are refused at once, calls in flight are cancelled
 * (CANCELLED_BY_LIFECYCLE), its tools leave the catalog and its process stops. Disabling a
 * disabled plugin changes and signals nothing.
 */
export class DisablePlugin {
  constructor(
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.locks.run(pluginId, async () => {
      const { processes, catalog, clock, logger } = this;
      const { record, changed } = await catalog.commit(async (tx) => {
        const stored = await findPlugin(tx, pluginId);
        if (stored.status === 'disabled' && !stored.enabled) return { record: stored, changed: false };
        const next: PluginRecord = { ...stored, status: 'disabled', enabled: false, updated_at: clock.isoNow() };
        await tx.savePlugin(next);
        return { record: next, changed: true };
      });
      if (!changed) return record;
      await processes.takeDown(pluginId);
      logger.info({ plugin_id: pluginId }, 'plugin disabled');
      return record;
    });
  }
}
