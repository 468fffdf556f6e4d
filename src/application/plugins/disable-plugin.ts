import type { PluginRecord } from '../../domain/plugin-record';
import { findPlugin } from './find-plugin';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';
import { takeDown } from './take-down';

/**
 * Disables a plugin: new calls are refused at once, calls in flight are cancelled
 * (CANCELLED_BY_LIFECYCLE), its tools leave the catalog and its process stops. Disabling a
 * disabled plugin changes and signals nothing.
 */
export class DisablePlugin {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.deps.locks.run(pluginId, async () => {
      const { store, runtime, running, catalog, clock, logger } = this.deps;
      const record = findPlugin(store, pluginId);
      if (record.status === 'disabled' && !record.enabled) return record;
      const next: PluginRecord = { ...record, status: 'disabled', enabled: false, updated_at: clock.isoNow() };
      store.savePlugin(next);
      catalog.recompute();
      await takeDown(running, runtime, pluginId);
      logger.info({ plugin_id: pluginId }, 'plugin disabled');
      return next;
    });
  }
}
