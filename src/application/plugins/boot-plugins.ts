import { clashingAtStartup } from '../../domain/naming';
import type { PluginRecord } from '../../domain/plugin-record';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PackageSharing } from '../ports/package-sharing';
import type { InstalledPackages } from '../ports/installed-packages';
import type { PluginRecords } from '../ports/plugin-records';
import type { CommitCopies, Replication } from '../ports/replication';
import type { Settings } from '../settings';
import { errorCode, errorMessage } from '../shared/error-code';
import type { KeyedMutex } from '../shared/keyed-mutex';
import type { PluginProcesses } from './plugin-processes';
import { needsConfigReason } from './stored-configuration';

/**
 * Backend startup: folders no record names are removed first; a plugin whose names clash with an earlier-installed one goes to `error`
 * with the reason; one whose stored configuration does not satisfy its config_schema (or no
 * longer decrypts) stays or goes to `needs_config`; every other enabled plugin is started (a
 * failure puts only it in `error`); the catalog is computed once at the end. Resolves once
 * each is active, in error or waiting for its configuration.
 */
export class BootPlugins {
  constructor(
    private readonly records: PluginRecords,
    private readonly packages: InstalledPackages,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly sharing: PackageSharing,
    private readonly replication: Replication,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  async execute(): Promise<void> {
    const { records: store, settings, catalog, packages, logger } = this;
    const records = await store.listPlugins();
    // Folders a crash during an uninstall or upgrade left: no record names them.
    const swept = await packages.sweep(new Map(records.map((record) => [record.id, record.version])));
    if (swept.length > 0) logger.warn({ removed: swept }, 'removed plugin folders no record names');
    const clashes = clashingAtStartup(records, settings.toolPrefix);
    await Promise.all(records.map((record) => this.locks.run(record.id, () => this.bootOne(record, clashes.get(record.id)))));
    await catalog.recompute();
  }

  private async bootOne(record: PluginRecord, clash: string | undefined): Promise<void> {
    const { processes, clock, logger } = this;
    if (clash !== undefined) {
      await this.save(record.id, { status: 'error', last_error: clash, updated_at: clock.isoNow() });
      logger.warn({ plugin_id: record.id, reason: clash }, 'plugin name clash at startup');
      return;
    }
    if (!record.enabled) {
      if (record.status !== 'disabled') await this.save(record.id, { status: 'disabled', updated_at: clock.isoNow() });
      return;
    }
    try {
      const config = await processes.configuration(record.id, record.manifest);
      if (config.violations.length > 0) {
        await this.save(record.id, { status: 'needs_config', last_error: needsConfigReason(config.violations), updated_at: clock.isoNow() });
        return;
      }
      // At a cluster start nothing runs yet: the kept bytes are unpacked afresh, in case another
      // replica reinstalled this version while this one was away.
      await this.sharing.ensure(record, true);
      processes.putInService(record.id, await processes.start(record.manifest, config.sealed));
      await this.save(record.id, { status: 'active', last_error: null, restart_count: 0, updated_at: clock.isoNow() });
    } catch (error) {
      await this.save(record.id, { status: 'error', last_error: errorMessage(error), updated_at: clock.isoNow() });
      logger.warn({ plugin_id: record.id, code: errorCode(error) }, 'plugin failed to start at boot');
    }
  }

  /**
   * Boot writes each record on its own; the catalog follows once, when every plugin is settled.
   * A change that sets `last_error` dates it with its own `updated_at`.
   */
  private async save(pluginId: string, change: Partial<PluginRecord> & { updated_at: string }): Promise<void> {
    const dated = 'last_error' in change ? { ...change, last_error_at: change.last_error === null ? null : change.updated_at } : change;
    let copies: CommitCopies | undefined;
    await this.records.transaction(async (raw) => {
      // At a cluster start the first replica's copies follow the records it settles.
      copies = this.replication.commit(raw);
      const current = await copies.tx.getPlugin(pluginId);
      if (!current) return;
      const next = { ...current, ...dated };
      await copies.tx.savePlugin(next);
      await copies.listed([next]);
    });
    copies?.committed();
  }
}
