import { ConfigInvalidError, ToolportError } from '../../domain/errors';
import type { PermissionName } from '../../domain/permissions';
import type { PluginManifest } from '../../domain/manifest';
import type { McpServerInfo, PluginRecord } from '../../domain/plugin-record';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { KeptPackage, PackageSharing } from '../ports/package-sharing';
import type { InstalledPackages } from '../ports/installed-packages';
import type { PackageStaging, StagedPackage } from '../ports/package-staging';
import type { PluginRecords } from '../ports/plugin-records';
import type { PluginInstance } from '../ports/plugin-runtime';
import type { Settings } from '../settings';
import { errorCode } from '../shared/error-code';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { assertGranted } from './assert-granted';
import { assertNamesFree } from './assert-names-free';
import { findPlugin } from './find-plugin';
import type { PluginProcesses } from './plugin-processes';
import { needsConfigReason, type StoredConfiguration } from './stored-configuration';

export interface UpgradePluginInput {
  pluginId: string;
  path: string;
  sha256?: string;
  /**
   * Also replace the version that is installed (`install --force`, the development loop): the
   * installed folder is set aside while the new one starts, and comes back if it fails.
   */
  sameVersion?: boolean;
  /**
   * `install --force`, the development loop (docs/lifecycle.md §4): a new config_schema the
   * stored configuration does not satisfy is not refused: the old process stops as a disable
   * stops it, and the new version waits in `needs_config`, naming what is missing.
   */
  keepUnconfigured?: boolean;
  /** The permissions the operator grants: each that grows past the installed version's needs one (see assertGranted). */
  grants?: readonly PermissionName[];
}

/**
 * Replaces an installed plugin by another version. The new version is started and healthy
 * before the old one stops; if it fails, the old instance, record and tools are untouched.
 * On success one catalog revision swaps the tools, the old instance's calls are cancelled
 * (CANCELLED_BY_LIFECYCLE) and it stops; the previous version's folder is kept.
 * A disabled plugin gets the new version and stays disabled. The configuration, state and
 * secrets are kept; a new config_schema the stored configuration does not satisfy is refused
 * with CONFIG_INVALID (every violation), unless the plugin is still in `needs_config`, or this is
 * `install --force` (keepUnconfigured): then the old process stops and the new version waits in
 * `needs_config`. Each permission the new version asks for beyond the installed one's must be
 * granted (PERMISSION_NOT_GRANTED otherwise, the old version untouched).
 */
export class UpgradePlugin {
  constructor(
    private readonly packages: PackageStaging,
    private readonly installed: InstalledPackages,
    private readonly records: PluginRecords,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly sharing: PackageSharing,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  async execute(input: UpgradePluginInput): Promise<PluginRecord> {
    const { packages, locks, records: store } = this;
    return locks.run(input.pluginId, async () => {
      const existing = await findPlugin(store, input.pluginId);
      // An MCP Bundle becomes the plugin it upgrades, whatever id its name would give.
      const staged = await packages.stage(input.path, input.sha256, { id: input.pluginId, grants: input.grants });
      let config: StoredConfiguration;
      let kept: KeptPackage;
      try {
        this.checkAdmissible(existing, staged, await store.listPlugins(), input.sameVersion === true);
        assertGranted(staged.manifest, input.grants, existing.manifest);
        config = await this.processes.configuration(existing.id, staged.manifest);
        if (config.violations.length > 0 && existing.status !== 'needs_config' && input.keepUnconfigured !== true) {
          throw new ConfigInvalidError(config.violations, `the stored configuration does not satisfy the config_schema of ${staged.manifest.version}`);
        }
        const broken = await this.processes.workspaceMerges(existing.id, staged.manifest, config.values);
        if (broken.length > 0 && existing.status !== 'needs_config' && input.keepUnconfigured !== true) {
          throw new ConfigInvalidError(broken, `a workspace's configuration would not satisfy the config_schema of ${staged.manifest.version}`);
        }
        kept = await this.sharing.keep(staged);
      } catch (error) {
        await packages.discard(staged);
        throw error;
      }
      const aside = staged.manifest.version === existing.version ? await this.installed.setAside(existing.id, existing.version) : undefined;
      try {
        await packages.commit(staged);
        const configured = config.violations.length === 0;
        const started = existing.enabled && configured ? await this.startNewVersion(staged, config) : undefined;
        // An MCP server's new version is pinned to its first list (docs/plugin-protocol.md, MCP servers).
        const pinned = started ? { ...staged, manifest: started.manifest } : staged;
        const record = await this.swap(existing, pinned, started?.instance, configured ? null : needsConfigReason(config.violations), started?.server ?? null);
        await aside?.drop();
        return record;
      } catch (error) {
        // The old process still runs from the folder set aside: it goes back where its record says.
        await aside?.restore();
        // The bytes this attempt kept for other replicas go at once (docs/operations.md §10).
        await kept.forget();
        throw error;
      }
    });
  }

  /** Starts the new version next to the old one; on failure its folder goes, the old stays. */
  private async startNewVersion(
    staged: StagedPackage,
    config: StoredConfiguration,
  ): Promise<{ instance: PluginInstance; manifest: PluginManifest; server: McpServerInfo | null }> {
    const { installed, processes, logger } = this;
    try {
      const started = await processes.startPinning(staged.manifest, config.sealed);
      if (started.manifest !== staged.manifest) {
        try {
          assertNamesFree({ id: staged.manifest.id, manifest: started.manifest }, await this.records.listPlugins(), this.settings.toolPrefix);
        } catch (error) {
          // A clash of the imported names stops the server and keeps nothing of the new version.
          await processes.takeBack(staged.manifest.id, started.instance, undefined);
          throw error;
        }
      }
      return started;
    } catch (error) {
      await installed.removeVersion(staged.manifest.id, staged.manifest.version);
      logger.warn({ plugin_id: staged.manifest.id, version: staged.manifest.version, code: errorCode(error) }, 'plugin upgrade failed');
      throw error;
    }
  }

  private checkAdmissible(existing: PluginRecord, staged: StagedPackage, stored: PluginRecord[], sameVersion: boolean): void {
    const { manifest } = staged;
    if (manifest.id !== existing.id) {
      throw new ToolportError('BAD_REQUEST', `the package is plugin "${manifest.id}", not "${existing.id}"`);
    }
    if (manifest.version === existing.version && !sameVersion) {
      throw new ToolportError('VERSION_EXISTS', `plugin "${existing.id}" is already at version ${existing.version}`);
    }
    assertNamesFree({ id: manifest.id, manifest }, stored, this.settings.toolPrefix);
  }

  /** `needsConfig`: why the new version waits for its configuration (an enabled plugin then stays in needs_config). */
  private async swap(
    existing: PluginRecord,
    staged: StagedPackage,
    fresh: PluginInstance | undefined,
    needsConfig: string | null,
    server: McpServerInfo | null,
  ): Promise<PluginRecord> {
    const { installed, processes, catalog, clock, logger, settings } = this;
    // New calls go to the new instance from now on; the record and catalog follow in one commit.
    const recorded = await processes.withReachWarnings(staged.manifest);
    const old = processes.putInService(existing.id, fresh);
    let record: PluginRecord;
    try {
      record = await catalog.commit(async (tx) => {
        // A new version has its own pinned tools: the old version's drift goes with it.
        const { tool_drift: _oldDrift, ...stored } = await findPlugin(tx, existing.id);
        assertNamesFree({ id: existing.id, manifest: staged.manifest }, await tx.listPlugins(), settings.toolPrefix);
        const waiting = stored.enabled && needsConfig !== null;
        const now = clock.isoNow();
        const next: PluginRecord = {
          ...stored,
          version: staged.manifest.version,
          manifest: recorded,
          package_sha256: staged.sha256,
          status: fresh ? 'active' : waiting ? 'needs_config' : stored.status,
          last_error: fresh ? null : waiting ? needsConfig : stored.last_error,
          last_error_at: fresh ? null : waiting ? now : stored.last_error_at,
          restart_count: fresh ? 0 : stored.restart_count,
          updated_at: now,
          ...(server ? { server } : {}),
        };
        await tx.savePlugin(next);
        return next;
      });
    } catch (error) {
      // The commit was refused: the old version keeps serving, the new one goes.
      await processes.takeBack(existing.id, fresh, old);
      await installed.removeVersion(staged.manifest.id, staged.manifest.version);
      throw error;
    }
    if (old) await processes.retire(old);
    if (record.version !== existing.version) await installed.pruneVersions(existing.id, [record.version, existing.version]);
    await this.sharing.prune();
    logger.info({ plugin_id: existing.id, from_version: existing.version, version: record.version }, 'plugin upgraded');
    return record;
  }
}
