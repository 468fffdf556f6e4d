import { ConfigInvalidError, PluginStartError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginRecords } from '../ports/plugin-records';
import type { PluginInstance } from '../ports/plugin-runtime';
import type { Replication } from '../ports/replication';
import type { Settings } from '../settings';
import { errorMessage } from '../shared/error-code';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { assertNamesFree } from './assert-names-free';
import { findPlugin } from './find-plugin';
import type { PluginProcesses } from './plugin-processes';

/**
 * Starts a plugin again. Answers the `active` record, or the `error` record when its process
 * did not start. Enabling an active plugin changes and signals nothing; one whose stored
 * configuration does not satisfy its config_schema is refused with CONFIG_INVALID and stays
 * as it was. Its names are checked before the start and again in the transaction that
 * commits it, so of two changes whose names collide exactly one succeeds.
 */
export class EnablePlugin {
  constructor(
    private readonly records: PluginRecords,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly replication: Replication,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  async execute(pluginId: string): Promise<PluginRecord> {
    return this.locks.run(pluginId, async () => {
      const { records: store, processes, catalog, clock, settings, logger } = this;
      const record = await findPlugin(store, pluginId);
      if (record.status === 'active' && record.enabled) {
        // With replicas (docs/operations.md §10) every copy in error restarts: this one's below;
        // the others follow the touched record, and a healthy copy stays as it is.
        const already = this.replication.enablingActive(pluginId, processes.serving(pluginId) !== undefined);
        if (already === 'unchanged') return record;
        if (already === 'touch') return this.touch(record);
      }
      const config = await processes.configuration(pluginId, record.manifest);
      if (config.violations.length > 0) throw new ConfigInvalidError(config.violations, 'its configuration does not satisfy config_schema; set it first');
      assertNamesFree(record, await store.listPlugins(), settings.toolPrefix);
      // An instance that gave up restarting is still supervised by the runtime: replace it.
      await processes.stopServing(pluginId);
      let instance: PluginInstance | undefined;
      let failure: string | null = null;
      try {
        instance = await processes.start(record.manifest, config.sealed);
      } catch (error) {
        if (!(error instanceof PluginStartError)) throw error;
        failure = errorMessage(error);
      }
      // Serving before the record commits: no call reaches it until the record says active.
      processes.putInService(pluginId, instance);
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
        await processes.takeBack(pluginId, instance, undefined);
        throw error;
      }
    });
  }

  /** A new update time on the desired-active record, so every replica looks at its copy again. */
  private touch(record: PluginRecord): Promise<PluginRecord> {
    return this.catalog.commit(async (tx) => {
      const stored = await findPlugin(tx, record.id);
      const touched: PluginRecord = { ...stored, updated_at: this.clock.isoNow() };
      await tx.savePlugin(touched);
      return touched;
    });
  }
}
