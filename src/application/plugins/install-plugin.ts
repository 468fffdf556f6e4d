import { ToolportError } from '../../domain/errors';
import { assertNoNameClash, namedPlugin } from '../../domain/naming';
import type { PluginRecord } from '../../domain/plugin-record';
import type { StagedPackage } from '../ports/package-source';
import type { PluginInstance } from '../ports/plugin-runtime';
import { errorCode } from '../shared/error-code';
import { launchSpecFor } from './launch-spec';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';

export interface InstallPluginInput {
  /** A package directory or `.tgz`. */
  path: string;
  sha256?: string;
}

/**
 * Installs a package and answers once its plugin is active. Any failure keeps nothing: no
 * version folder, no record, no catalog change (PluginStartError passes through).
 */
export class InstallPlugin {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(input: InstallPluginInput): Promise<PluginRecord> {
    const { packages, locks } = this.deps;
    const staged = await packages.stage(input.path, input.sha256);
    return locks.run(staged.manifest.id, async () => {
      try {
        this.checkAdmissible(staged);
      } catch (error) {
        await packages.discard(staged);
        throw error;
      }
      return this.installAndStart(staged);
    });
  }

  private checkAdmissible(staged: StagedPackage): void {
    const { store, settings } = this.deps;
    const { id } = staged.manifest;
    if (store.getPlugin(id)) throw new ToolportError('ALREADY_INSTALLED', `plugin "${id}" is already installed; upgrade it instead`);
    const candidate = { id, toolNames: staged.manifest.agent_tools.map((tool) => tool.name) };
    assertNoNameClash(candidate, store.listPlugins().map(namedPlugin), settings.toolPrefix);
  }

  private async installAndStart(staged: StagedPackage): Promise<PluginRecord> {
    const { store, packages, runtime, running, catalog, clock, logger } = this.deps;
    const { manifest } = staged;
    let instance: PluginInstance | undefined;
    try {
      const installed = await packages.commit(staged);
      instance = await runtime.start(await launchSpecFor(packages, manifest));
      const now = clock.isoNow();
      const record: PluginRecord = {
        id: manifest.id,
        version: manifest.version,
        status: 'active',
        enabled: true,
        manifest,
        install_dir: installed.installDir,
        package_sha256: staged.sha256,
        last_error: null,
        restart_count: 0,
        install_seq: store.nextInstallSeq(),
        installed_at: now,
        updated_at: now,
      };
      store.savePlugin(record);
      running.setCurrent(instance);
      catalog.recompute();
      logger.info({ plugin_id: manifest.id, version: manifest.version }, 'plugin installed');
      return record;
    } catch (error) {
      if (instance) await runtime.stop(instance);
      // A fresh install owns nothing else: removing the whole plugin also drops its data dir.
      await packages.removePlugin(manifest.id);
      logger.warn({ plugin_id: manifest.id, version: manifest.version, code: errorCode(error) }, 'plugin install failed');
      throw error;
    }
  }
}
