import type { CatalogService } from '../catalog/catalog-service';
import type { Logger } from '../ports/logger';
import type { PackageSharing } from '../ports/package-sharing';
import type { InstalledPackages } from '../ports/installed-packages';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { findPlugin } from './find-plugin';
import type { PluginProcesses } from './plugin-processes';

/**
 * Removes a plugin: new calls are refused at once, calls in flight are cancelled
 * (CANCELLED_BY_LIFECYCLE), its process stops, and its record, tools, version folders and
 * data folder go.
 */
export class UninstallPlugin {
  constructor(
    private readonly packages: InstalledPackages,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly sharing: PackageSharing,
    private readonly logger: Logger,
  ) {}

  async execute(pluginId: string): Promise<void> {
    await this.locks.run(pluginId, async () => {
      const { packages, processes, catalog, logger } = this;
      await catalog.commit(async (tx) => {
        await findPlugin(tx, pluginId);
        await tx.deletePlugin(pluginId);
      });
      await processes.takeDown(pluginId);
      await packages.removePlugin(pluginId);
      await this.sharing.prune();
      logger.info({ plugin_id: pluginId }, 'plugin uninstalled');
    });
  }
}
