import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { CatalogService } from '../catalog/catalog-service';
import type { PluginProcesses } from '../plugins/plugin-processes';
import type { Logger } from '../ports/logger';
import type { PackageSharing } from '../ports/package-sharing';
import type { InstalledPackages } from '../ports/installed-packages';
import type { PluginRecords } from '../ports/plugin-records';
import type { ReplicaRoster } from '../ports/replica-roster';
import { errorCode, errorMessage } from '../shared/error-code';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { runs, type LocalCopies } from './local-copies';

/**
 * Makes this replica's own plugin processes follow the stored records (docs/operations.md §10), after
 * another replica changed them or when this one joins live ones: a desired-`active` record
 * gets a copy of its version with its configuration (started, or replaced when either
 * changed), any other record none, and an uninstalled plugin loses its copy and folders.
 * Records are never written here: only this replica's copies, with the catalog they move.
 */
export class ReconcileCopies {
  constructor(
    private readonly roster: ReplicaRoster,
    private readonly copies: LocalCopies,
    private readonly records: PluginRecords,
    private readonly packages: InstalledPackages,
    private readonly sharing: PackageSharing,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly logger: Logger,
  ) {}

  /** Resolves once every copy follows the records as they were read. */
  async execute(): Promise<void> {
    const { records: store, locks, copies } = this;
    const records = await store.listPlugins();
    const ids = new Set(records.map((record) => record.id));
    for (const gone of copies.pluginIds().filter((id) => !ids.has(id))) await locks.run(gone, () => this.removed(gone));
    await Promise.all(records.map((record) => locks.run(record.id, () => this.follow(record.id))));
  }

  /** Stores this replica's copies again (its registration had lapsed, and they with it). */
  async resave(): Promise<void> {
    const { catalog, copies, processes, roster } = this;
    await catalog.commit(async (tx) => {
      for (const record of await tx.listPlugins()) {
        const status: PluginStatus = processes.serving(record.id) ? 'active' : record.status === 'active' ? 'error' : record.status;
        await roster.copiesIn(tx).saveCopy(record.id, copies.copyOf(record.id, status));
      }
    });
  }

  private async removed(pluginId: string): Promise<void> {
    const { processes, packages, copies, logger } = this;
    await processes.takeDown(pluginId);
    await packages.removePlugin(pluginId);
    copies.forget(pluginId);
    logger.info({ plugin_id: pluginId }, 'copy removed: uninstalled through another replica');
  }

  private async follow(pluginId: string): Promise<void> {
    const { records: store, copies, processes } = this;
    // Read again under the plugin's lock: a change through this replica may have just committed.
    const record = await store.getPlugin(pluginId);
    if (!record || copies.follows(record)) return;
    if (!record.enabled || record.status !== 'active') {
      await processes.takeDown(pluginId);
      await this.settle(record, null, record.status);
      return;
    }
    // A record touched without a change this copy runs (an enable of an active plugin, meant
    // for copies in error) leaves a healthy copy as it is.
    const config = (await store.getConfig(pluginId))?.data ?? null;
    if (copies.serves(record, config)) {
      copies.follow(record, runs(record, config));
      return;
    }
    const status = await this.startCopy(record);
    await this.settle(record, status === 'active' ? runs(record, config) : null, status);
  }

  /** Starts the record's version with its stored configuration in place of any older copy. */
  private async startCopy(record: PluginRecord): Promise<PluginStatus> {
    const { processes, packages, copies, logger } = this;
    // The package is unpacked afresh unless this copy already runs these very bytes; a process
    // of the same version keeps its folder, set aside, until the new one took over.
    const unpack = !copies.ranPackage(record.id, record.package_sha256);
    const inUse = processes.serving(record.id)?.version === record.version && (await packages.isInstalled(record.manifest));
    const aside = unpack && inUse ? await packages.setAside(record.id, record.version) : undefined;
    try {
      await this.sharing.ensure(record, unpack);
      const config = await processes.configuration(record.id, record.manifest);
      if (config.violations.length > 0) {
        await processes.takeDown(record.id);
        await aside?.drop();
        return 'needs_config';
      }
      const old = processes.putInService(record.id, await processes.start(record.manifest, config.sealed));
      if (old) await processes.retire(old);
      await aside?.drop();
      await packages.pruneVersions(record.id, [record.version]);
      logger.info({ plugin_id: record.id, version: record.version }, 'copy started to follow another replica');
      return 'active';
    } catch (error) {
      await aside?.restore().catch(() => undefined);
      await processes.takeDown(record.id);
      logger.warn({ plugin_id: record.id, code: errorCode(error), reason: errorMessage(error) }, 'copy could not start');
      return 'error';
    }
  }

  private async settle(record: PluginRecord, running: string | null, status: PluginStatus): Promise<void> {
    const { copies, catalog, roster } = this;
    copies.follow(record, running);
    const copy = copies.copyOf(record.id, status);
    await catalog.commit(async (tx) => {
      await roster.copiesIn(tx).saveCopy(record.id, copy);
    });
  }
}
