import { ToolportError } from '../../domain/errors';
import { assertNoNameClash, namedPlugin } from '../../domain/naming';
import type { PluginRecord } from '../../domain/plugin-record';
import type { InstalledPackage, StagedPackage } from '../ports/package-source';
import type { PluginInstance } from '../ports/plugin-runtime';
import { errorCode } from '../shared/error-code';
import { findPlugin } from './find-plugin';
import { launchSpecFor } from './launch-spec';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';

export interface UpgradePluginInput {
  pluginId: string;
  path: string;
  sha256?: string;
}

/**
 * Replaces an installed plugin by another version. The new version is started and healthy
 * before the old one stops; if it fails, the old instance, record and tools are untouched.
 * On success one catalog revision swaps the tools, the old instance's calls are cancelled
 * (CANCELLED_BY_LIFECYCLE) and it stops; the previous version's folder is kept.
 * A disabled plugin gets the new version and stays disabled.
 */
export class UpgradePlugin {
  constructor(private readonly deps: PluginLifecycleDeps) {}

  async execute(input: UpgradePluginInput): Promise<PluginRecord> {
    const { packages, locks } = this.deps;
    return locks.run(input.pluginId, async () => {
      const existing = findPlugin(this.deps.store, input.pluginId);
      const staged = await packages.stage(input.path, input.sha256);
      try {
        this.checkAdmissible(existing, staged);
      } catch (error) {
        await packages.discard(staged);
        throw error;
      }
      const installed = await packages.commit(staged);
      const fresh = existing.enabled ? await this.startNewVersion(staged) : undefined;
      return this.swap(existing, staged, installed, fresh);
    });
  }

  /** Starts the new version next to the old one; on failure its folder goes, the old stays. */
  private async startNewVersion(staged: StagedPackage): Promise<PluginInstance> {
    const { packages, runtime, logger } = this.deps;
    try {
      return await runtime.start(await launchSpecFor(packages, staged.manifest));
    } catch (error) {
      await packages.removeVersion(staged.manifest.id, staged.manifest.version);
      logger.warn({ plugin_id: staged.manifest.id, version: staged.manifest.version, code: errorCode(error) }, 'plugin upgrade failed');
      throw error;
    }
  }

  private checkAdmissible(existing: PluginRecord, staged: StagedPackage): void {
    const { manifest } = staged;
    if (manifest.id !== existing.id) {
      throw new ToolportError('BAD_REQUEST', `the package is plugin "${manifest.id}", not "${existing.id}"`);
    }
    if (manifest.version === existing.version) {
      throw new ToolportError('VERSION_EXISTS', `plugin "${existing.id}" is already at version ${existing.version}`);
    }
    const candidate = { id: manifest.id, toolNames: manifest.agent_tools.map((tool) => tool.name) };
    assertNoNameClash(candidate, this.deps.store.listPlugins().map(namedPlugin), this.deps.settings.toolPrefix);
  }

  private async swap(existing: PluginRecord, staged: StagedPackage, installed: InstalledPackage, fresh: PluginInstance | undefined): Promise<PluginRecord> {
    const { store, packages, runtime, running, catalog, clock, logger } = this.deps;
    const record: PluginRecord = {
      ...existing,
      version: staged.manifest.version,
      manifest: staged.manifest,
      install_dir: installed.installDir,
      package_sha256: staged.sha256,
      status: fresh ? 'active' : existing.status,
      last_error: fresh ? null : existing.last_error,
      restart_count: fresh ? 0 : existing.restart_count,
      updated_at: clock.isoNow(),
    };
    // One synchronous step: new calls go to the new instance from the same tick the record
    // and catalog name the new version.
    const old = running.release(existing.id);
    if (fresh) running.setCurrent(fresh);
    store.savePlugin(record);
    catalog.recompute();
    if (old) {
      running.cancel(existing.id, old);
      await runtime.stop(old);
    }
    await packages.pruneVersions(existing.id, [record.version, existing.version]);
    logger.info({ plugin_id: existing.id, from_version: existing.version, version: record.version }, 'plugin upgraded');
    return record;
  }
}
