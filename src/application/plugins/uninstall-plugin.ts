import { findPlugin } from './find-plugin';
import { installedCopy } from './installed-copy';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';
import { takeDown } from './take-down';

/**
 * Removes a plugin: new calls are refused at once, calls in flight are cancelled
 * (CANCELLED_BY_LIFECYCLE), its process stops, and its record, tools, version folders and
 * data folder go.
 */
export class UninstallPlugin {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(pluginId: string): Promise<void> {
    await this.deps.locks.run(pluginId, async () => {
      const { packages, runtime, running, catalog, logger } = this.deps;
      await catalog.commit(async (tx) => {
        await findPlugin(tx, pluginId);
        await tx.deletePlugin(pluginId);
      });
      await takeDown(running, runtime, pluginId);
      await packages.removePlugin(pluginId);
      await installedCopy.prune(this.deps);
      logger.info({ plugin_id: pluginId }, 'plugin uninstalled');
    });
  }
}
