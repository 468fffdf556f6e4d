import { PluginStartError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { PluginInstance } from '../ports/plugin-runtime';
import { errorMessage } from '../shared/error-code';
import { assertNamesFree } from './assert-names-free';
import { findPlugin } from './find-plugin';
import { launchSpecFor } from './launch-spec';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';

/**
 * Starts a plugin again. Answers the `active` record, or the `error` record when its process
 * did not start. Enabling an active plugin changes and signals nothing. Its names are checked
 * before the start and again in the transaction that commits it, so of two changes whose names
 * collide exactly one succeeds.
 */
export class EnablePlugin {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.deps.locks.run(pluginId, async () => {
      const { store, packages, runtime, running, catalog, clock, settings, logger } = this.deps;
      const record = await findPlugin(store, pluginId);
      if (record.status === 'active' && record.enabled) return record;
      assertNamesFree(record, await store.listPlugins(), settings.toolPrefix);
      // An instance that gave up restarting is still supervised by the runtime: replace it.
      const stale = running.release(pluginId);
      if (stale) await runtime.stop(stale);
      let instance: PluginInstance | undefined;
      let failure: string | null = null;
      try {
        instance = await runtime.start(await launchSpecFor(packages, record.manifest));
      } catch (error) {
        if (!(error instanceof PluginStartError)) throw error;
        failure = errorMessage(error);
      }
      // Serving before the record commits: no call reaches it until the record says active.
      if (instance) running.setCurrent(instance);
      try {
        const next = await catalog.commit(async (tx) => {
          const stored = await findPlugin(tx, pluginId);
          if (instance) assertNamesFree(stored, await tx.listPlugins(), settings.toolPrefix);
          const changed: PluginRecord = instance
            ? { ...stored, status: 'active', enabled: true, last_error: null, restart_count: 0, updated_at: clock.isoNow() }
            : { ...stored, status: 'error', enabled: true, last_error: failure, updated_at: clock.isoNow() };
          await tx.savePlugin(changed);
          return changed;
        });
        logger.info({ plugin_id: pluginId, status: next.status }, 'plugin enabled');
        return next;
      } catch (error) {
        if (instance) {
          running.release(pluginId);
          await runtime.stop(instance);
        }
        throw error;
      }
    });
  }
}
