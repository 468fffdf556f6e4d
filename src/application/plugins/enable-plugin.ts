import { assertNoNameClash, namedPlugin } from '../../domain/naming';
import type { PluginRecord } from '../../domain/plugin-record';
import { PluginStartError } from '../../domain/errors';
import { errorMessage } from '../shared/error-code';
import { findPlugin } from './find-plugin';
import { launchSpecFor } from './launch-spec';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';

/**
 * Starts a plugin again. Answers the `active` record, or the `error` record when its process
 * did not start. Enabling an active plugin changes and signals nothing.
 */
export class EnablePlugin {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.deps.locks.run(pluginId, async () => {
      const { store, packages, runtime, running, catalog, clock, settings, logger } = this.deps;
      const record = findPlugin(store, pluginId);
      if (record.status === 'active' && record.enabled) return record;
      assertNoNameClash(namedPlugin(record), store.listPlugins().map(namedPlugin), settings.toolPrefix);
      // An instance that gave up restarting is still supervised by the runtime: replace it.
      const stale = running.release(pluginId);
      if (stale) await runtime.stop(stale);
      let next: PluginRecord;
      try {
        const instance = await runtime.start(await launchSpecFor(packages, record.manifest));
        running.setCurrent(instance);
        next = { ...record, status: 'active', enabled: true, last_error: null, restart_count: 0, updated_at: clock.isoNow() };
      } catch (error) {
        if (!(error instanceof PluginStartError)) throw error;
        next = { ...record, status: 'error', enabled: true, last_error: errorMessage(error), updated_at: clock.isoNow() };
      }
      store.savePlugin(next);
      catalog.recompute();
      logger.info({ plugin_id: pluginId, status: next.status }, 'plugin enabled');
      return next;
    });
  }
}
