import { configurationViolations } from '../../domain/config-check';
import { ToolportError } from '../../domain/errors';
import { substitutionViolations } from '../../domain/permission-paths';
import { mcpSubstitutionViolations } from '../../domain/mcp-runtime-substitution';
import type { PermissionName } from '../../domain/permissions';
import type { McpServerInfo, PluginRecord } from '../../domain/plugin-record';
import type { SchemaCompiler } from '../../domain/schema-compiler';
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
import type { PluginProcesses } from './plugin-processes';
import { needsConfigReason } from './stored-configuration';
import type { UpgradePlugin } from './upgrade-plugin';

export interface InstallPluginInput {
  /** A package directory or `.tgz`. */
  path: string;
  sha256?: string;
  /**
   * Also when this plugin is installed, at this version or another (`install --force`, the
   * development loop): it is then replaced as an upgrade replaces it, keeping its data dir,
   * configuration, state and secrets; if the new process fails, the old one keeps running.
   */
  force?: boolean;
  /**
   * The permissions the operator grants (docs/lifecycle.md, grants): a package asking for one
   * not here is refused with PERMISSION_NOT_GRANTED before anything is kept. Absent: none.
   */
  grants?: readonly PermissionName[];
  /** For an MCP Bundle (docs/mcp-servers.md): the plugin id to give it instead of the one its name gives. */
  id?: string;
}

/**
 * Installs a package and answers once its plugin is active, or at once in `needs_config` with
 * no process when an empty configuration does not satisfy its config_schema (docs/lifecycle.md).
 * The permissions it asks for must all be granted, checked right after validation.
 * Any failure keeps nothing: no version folder, no record, no catalog change
 * (PluginStartError passes through). The id and the names are checked before the start and
 * again in the transaction that commits the record.
 */
export class InstallPlugin {
  constructor(
    private readonly packages: PackageStaging,
    private readonly installed: InstalledPackages,
    private readonly records: PluginRecords,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly schemas: SchemaCompiler,
    private readonly sharing: PackageSharing,
    /** What `install --force` of an installed plugin is. */
    private readonly upgrade: UpgradePlugin,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  async execute(input: InstallPluginInput): Promise<PluginRecord> {
    const { packages, locks, records: store } = this;
    const staged = await packages.stage(input.path, input.sha256, { id: input.id, grants: input.grants });
    if (input.force && (await store.getPlugin(staged.manifest.id))) {
      await packages.discard(staged);
      return this.upgrade.execute({
        pluginId: staged.manifest.id,
        path: input.path,
        sha256: input.sha256,
        sameVersion: true,
        keepUnconfigured: true,
        grants: input.grants,
      });
    }
    return locks.run(staged.manifest.id, async () => {
      try {
        assertGranted(staged.manifest, input.grants);
        this.checkAdmissible(staged, await store.getPlugin(staged.manifest.id), await store.listPlugins());
      } catch (error) {
        await packages.discard(staged);
        throw error;
      }
      return this.installAndStart(staged);
    });
  }

  private checkAdmissible(staged: StagedPackage, existing: PluginRecord | undefined, stored: PluginRecord[]): void {
    const { id } = staged.manifest;
    if (existing) throw new ToolportError('ALREADY_INSTALLED', `plugin "${id}" is already installed; upgrade it instead`);
    assertNamesFree({ id, manifest: staged.manifest }, stored, this.settings.toolPrefix);
  }

  private async installAndStart(staged: StagedPackage): Promise<PluginRecord> {
    const { packages, processes, catalog, clock, logger, schemas } = this;
    const { manifest } = staged;
    let instance: PluginInstance | undefined;
    let kept: KeptPackage | undefined;
    try {
      kept = await this.sharing.keep(staged);
      await packages.commit(staged);
      const recorded = await processes.withReachWarnings(manifest);
      const missing = [
        ...configurationViolations(manifest.config_schema, {}, schemas),
        ...substitutionViolations(manifest.permissions, {}),
        ...mcpSubstitutionViolations(manifest.runtime, {}),
      ];
      let pinned = recorded;
      let server: McpServerInfo | null = null;
      if (missing.length === 0) {
        // An MCP server's first list is imported and pinned as its tools, names checked before it serves.
        const started = await processes.startPinning(recorded, null);
        instance = started.instance;
        ({ manifest: pinned, server } = started);
        if (pinned !== recorded) assertNamesFree({ id: manifest.id, manifest: pinned }, await this.records.listPlugins(), this.settings.toolPrefix);
        // Serving before the record commits: no call reaches it until the record says active.
        processes.putInService(manifest.id, instance);
      }
      const record = await catalog.commit(async (tx) => {
        this.checkAdmissible({ ...staged, manifest: pinned }, await tx.getPlugin(manifest.id), await tx.listPlugins());
        const now = clock.isoNow();
        const fresh: PluginRecord = {
          id: manifest.id,
          version: manifest.version,
          status: instance ? 'active' : 'needs_config',
          enabled: true,
          manifest: pinned,
          package_sha256: staged.sha256,
          last_error: instance ? null : needsConfigReason(missing),
          last_error_at: instance ? null : now,
          restart_count: 0,
          install_seq: await tx.nextInstallSeq(),
          installed_at: now,
          updated_at: now,
          ...(server ? { server } : {}),
        };
        await tx.savePlugin(fresh);
        return fresh;
      });
      logger.info({ plugin_id: manifest.id, version: manifest.version, status: record.status }, 'plugin installed');
      return record;
    } catch (error) {
      await processes.takeBack(manifest.id, instance, undefined);
      // A fresh install owns nothing else: removing the whole plugin also drops its data dir,
      // and the bytes it kept for other replicas go at once (docs/operations.md §10).
      await this.installed.removePlugin(manifest.id);
      await kept?.forget();
      logger.warn({ plugin_id: manifest.id, version: manifest.version, code: errorCode(error) }, 'plugin install failed');
      throw error;
    }
  }
}
