import { ConfigInvalidError, PluginStartError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { PluginInstance } from '../ports/plugin-runtime';
import { errorMessage } from '../shared/error-code';
import { assertNamesFree } from './assert-names-free';
import { findPlugin } from './find-plugin';
import { launchSpecFor } from './launch-spec';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';
import { storedConfiguration } from './stored-configuration';

/**
 * Starts a plugin again. Answers the `active` record, or the `error` record when its process
 * did not start. Enabling an active plugin changes and signals nothing; one whose stored
 * configuration does not satisfy its config_schema is refused with CONFIG_INVALID and stays
 * as it was. Its names are checked before the start and again in the transaction that
 * commits it, so of two changes whose names collide exactly one succeeds.
 */
export class EnablePlugin {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.deps.locks.run(pluginId, async () => {
      const { store, runtime, running, catalog, clock, settings, logger } = this.deps;
      const record = await findPlugin(store, pluginId);
      if (record.status === 'active' && record.enabled) {
        if (!this.deps.copies) return record;
        // Replicas (docs/operations.md §10): every copy in error restarts. This one's below; the others
        // follow the touched record, and a healthy copy stays as it is.
        if (this.deps.copies.statusOf(pluginId) === 'active' && running.instanceOf(pluginId)) return this.touch(record);
      }
      const config = await storedConfiguration(this.deps, store, pluginId, record.manifest);
      if (config.violations.length > 0) throw new ConfigInvalidError(config.violations, 'its configuration does not satisfy config_schema; set it first');
      assertNamesFree(record, await store.listPlugins(), settings.toolPrefix);
      // An instance that gave up restarting is still supervised by the runtime: replace it.
      const stale = running.release(pluginId);
      if (stale) await runtime.stop(stale);
      let instance: PluginInstance | undefined;
      let failure: string | null = null;
      try {
        instance = await runtime.start(await launchSpecFor(this.deps, record.manifest, config.sealed));
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
          const now = clock.isoNow();
          const changed: PluginRecord = instance
            ? { ...stored, status: 'active', enabled: true, last_error: null, last_error_at: null, restart_count: 0, updated_at: now }
            : { ...stored, status: 'error', enabled: true, last_error: failure, last_error_at: now, updated_at: now };
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

  /** A new update time on the desired-active record, so every replica looks at its copy again. */
  private touch(record: PluginRecord): Promise<PluginRecord> {
    return this.deps.catalog.commit(async (tx) => {
      const stored = await findPlugin(tx, record.id);
      const touched: PluginRecord = { ...stored, updated_at: this.deps.clock.isoNow() };
      await tx.savePlugin(touched);
      return touched;
    });
  }
}
