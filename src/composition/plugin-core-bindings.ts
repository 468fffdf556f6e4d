import type { Container } from 'inversify';
import { CatalogService } from '../application/catalog/catalog-service';
import { SoleBackend } from '../application/catalog/sole-backend';
import { BootPlugins } from '../application/plugins/boot-plugins';
import { ConfigurePlugin } from '../application/plugins/configure-plugin';
import { DescribePlugin } from '../application/plugins/describe-plugin';
import { DisablePlugin } from '../application/plugins/disable-plugin';
import { EnablePlugin } from '../application/plugins/enable-plugin';
import { AcceptPluginTools } from '../application/plugins/accept-plugin-tools';
import { ServerToolPins } from '../application/plugins/server-tool-pins';
import { GetPlugin } from '../application/plugins/get-plugin';
import { GetPluginConfig } from '../application/plugins/get-plugin-config';
import { ConfigureWorkspace } from '../application/plugins/configure-workspace';
import { GetWorkspaceConfig } from '../application/plugins/get-workspace-config';
import { ListConfigWorkspaces } from '../application/plugins/list-config-workspaces';
import { GetPluginConfigSchema } from '../application/plugins/get-plugin-config-schema';
import { GetPluginLogs } from '../application/plugins/get-plugin-logs';
import { InstallPlugin } from '../application/plugins/install-plugin';
import { GrantedReach } from '../application/plugins/granted-reach';
import { LaunchSpecs } from '../application/plugins/launch-spec';
import { ListPlugins } from '../application/plugins/list-plugins';
import { NoPackageSharing } from '../application/plugins/no-package-sharing';
import { PluginSupervision } from '../application/plugins/plugin-supervision';
import { PluginViews } from '../application/plugins/plugin-views';
import { RunningPlugins } from '../application/plugins/running-plugins';
import { PluginProcesses } from '../application/plugins/plugin-processes';
import { StoredConfigurations } from '../application/plugins/stored-configuration';
import { UninstallPlugin } from '../application/plugins/uninstall-plugin';
import { UpgradePlugin } from '../application/plugins/upgrade-plugin';
import { Clock } from '../application/ports/clock';
import { HostAccess } from '../application/ports/host-access';
import { HostPaths } from '../application/ports/host-paths';
import { IdGenerator } from '../application/ports/id-generator';
import { PackageSharing } from '../application/ports/package-sharing';
import { InstalledPackages } from '../application/ports/installed-packages';
import { PackageStaging } from '../application/ports/package-staging';
import { PackageVault } from '../application/ports/package-vault';
import { PluginLogs } from '../application/ports/plugin-logs';
import { PluginRecords } from '../application/ports/plugin-records';
import { PluginRuntime } from '../application/ports/plugin-runtime';
import { ReplicaRoster } from '../application/ports/replica-roster';
import { Replication } from '../application/ports/replication';
import { SecretBox } from '../application/ports/secret-box';
import { StoreChanges } from '../application/ports/store-changes';
import { FollowReplicas } from '../application/replicas/follow-replicas';
import { LocalCopies } from '../application/replicas/local-copies';
import { ReconcileCopies } from '../application/replicas/reconcile-copies';
import { SharedStoreReplication } from '../application/replicas/shared-store-replication';
import { VaultPackageSharing } from '../application/replicas/vault-package-sharing';
import { BackendUrl } from '../application/sessions/backend-url';
import { ReconcileSessions } from '../application/sessions/reconcile-sessions';
import { KeyedMutex } from '../application/shared/keyed-mutex';
import type { Logger } from '../application/ports/logger';
import { SchemaCompiler } from '../domain/schema-compiler';
import { NoOtherReplicas, OtherReplicas, SharedStoreReplicas } from '../application/backend/other-replicas';
import { bindClass, bindComponentLoggers, loggerOf } from './bind-class';
import { BACKEND_SETTINGS } from './backend-tokens';

/** The shared store's replica parts, all on the same store. */
export interface ReplicaParts {
  roster: ReplicaRoster;
  changes: StoreChanges;
  vault: PackageVault;
}

/** The helpers the plugin lifecycle use cases share: running instances, per-plugin locks, launch specs, stored configurations. */
function bindPluginHelpers(c: Container): void {
  bindClass(c, RunningPlugins, []);
  bindClass(c, KeyedMutex, []);
  bindClass(c, GrantedReach, [HostPaths, SecretBox]);
  bindClass(c, LaunchSpecs, [InstalledPackages, HostAccess, GrantedReach]);
  bindClass(c, StoredConfigurations, [PluginRecords, SecretBox, SchemaCompiler]);
  bindClass(c, PluginProcesses, [PluginRuntime, RunningPlugins, LaunchSpecs, StoredConfigurations, SchemaCompiler]);
}

/**
 * Replica mode (docs/operations.md §10): on a shared store the roster, the copies, the vault and
 * the following of other replicas; for a backend alone, the null objects.
 */
function bindReplication(c: Container, replicas: ReplicaParts | undefined): void {
  if (!replicas) {
    bindClass(c, SoleBackend, [PluginRecords]);
    c.bind(Replication).toService(SoleBackend);
    bindClass(c, NoPackageSharing, []);
    c.bind(PackageSharing).toService(NoPackageSharing);
    bindClass(c, NoOtherReplicas, []);
    c.bind(OtherReplicas).toService(NoOtherReplicas);
    return;
  }
  c.bind(ReplicaRoster).toConstantValue(replicas.roster);
  c.bind(StoreChanges).toConstantValue(replicas.changes);
  c.bind(PackageVault).toConstantValue(replicas.vault);
  bindClass(c, LocalCopies, [RunningPlugins]);
  c.bind(Replication).toResolvedValue(
    (roster: ReplicaRoster, copies: LocalCopies, url: BackendUrl) => new SharedStoreReplication(roster, copies, url, process.pid),
    [ReplicaRoster, LocalCopies, BackendUrl],
  );
  bindClass(c, VaultPackageSharing, [PackageVault, PackageStaging, InstalledPackages, loggerOf('plugins')]);
  c.bind(PackageSharing).toService(VaultPackageSharing);
  bindClass(c, ReconcileCopies, [
    ReplicaRoster,
    LocalCopies,
    PluginRecords,
    InstalledPackages,
    PackageSharing,
    PluginProcesses,
    CatalogService,
    KeyedMutex,
    loggerOf('plugins'),
  ]);
  bindClass(c, FollowReplicas, [ReplicaRoster, StoreChanges, ReconcileCopies, CatalogService, BackendUrl, loggerOf('replicas'), ReconcileSessions]);
  bindClass(c, SharedStoreReplicas, [ReconcileCopies, FollowReplicas]);
  c.bind(OtherReplicas).toService(SharedStoreReplicas);
}

/** The use cases that change plugins, each given the ports it uses, in its constructor's order. */
function bindLifecycle(c: Container): void {
  const [settings, log] = [BACKEND_SETTINGS, loggerOf('plugins')];
  // Every lifecycle change starts, swaps and stops processes through PluginProcesses, under the catalog and the plugin's lock.
  const changes = [PluginProcesses, CatalogService, KeyedMutex] as const;
  bindClass(c, UpgradePlugin, [PackageStaging, InstalledPackages, PluginRecords, ...changes, Clock, PackageSharing, settings, log]);
  bindClass(c, InstallPlugin, [
    PackageStaging,
    InstalledPackages,
    PluginRecords,
    ...changes,
    Clock,
    SchemaCompiler,
    PackageSharing,
    UpgradePlugin,
    settings,
    log,
  ]);
  bindClass(c, EnablePlugin, [PluginRecords, ...changes, Clock, Replication, settings, log]);
  bindClass(c, DisablePlugin, [...changes, Clock, log]);
  bindClass(c, UninstallPlugin, [InstalledPackages, ...changes, PackageSharing, log]);
  bindClass(c, BootPlugins, [PluginRecords, InstalledPackages, ...changes, Clock, PackageSharing, Replication, settings, log]);
  bindClass(c, ConfigurePlugin, [PluginRecords, ...changes, Clock, SecretBox, SchemaCompiler, settings, log]);
  bindClass(c, AcceptPluginTools, [PluginRecords, ...changes, Clock, SchemaCompiler, settings, log]);
  bindClass(c, ServerToolPins, [...changes, Clock, SchemaCompiler, settings, log]);
}

/** The catalog, the plugin lifecycle, the reads of plugins and supervision; replica mode or its null objects. */
export function bindPluginCore(c: Container, replicas: ReplicaParts | undefined): void {
  bindComponentLoggers(c, ['plugins', 'replicas', 'catalog', 'supervision']);
  bindPluginHelpers(c);
  bindReplication(c, replicas);
  bindClass(c, CatalogService, [PluginRecords, IdGenerator, BACKEND_SETTINGS, loggerOf('catalog'), Replication]);
  bindLifecycle(c);
  c.bind(GetPluginConfig).toResolvedValue(
    (store: PluginRecords, secrets: SecretBox, schemas: SchemaCompiler) => new GetPluginConfig(store, { secrets, schemas }),
    [PluginRecords, SecretBox, SchemaCompiler],
  );
  bindClass(c, GetPluginConfigSchema, [PluginRecords]);
  const workspaceConfig = (secrets: SecretBox, schemas: SchemaCompiler) => ({ secrets, schemas });
  c.bind(ConfigureWorkspace).toResolvedValue(
    (store: PluginRecords, locks: KeyedMutex, secrets: SecretBox, schemas: SchemaCompiler, log: Logger) =>
      new ConfigureWorkspace(store, locks, workspaceConfig(secrets, schemas), log),
    [PluginRecords, KeyedMutex, SecretBox, SchemaCompiler, loggerOf('plugins')],
  );
  c.bind(GetWorkspaceConfig).toResolvedValue(
    (store: PluginRecords, secrets: SecretBox, schemas: SchemaCompiler) => new GetWorkspaceConfig(store, workspaceConfig(secrets, schemas)),
    [PluginRecords, SecretBox, SchemaCompiler],
  );
  bindClass(c, ListConfigWorkspaces, [PluginRecords]);
  bindClass(c, GetPluginLogs, [PluginRecords, PluginLogs]);
  bindClass(c, PluginViews, [RunningPlugins, Replication, BACKEND_SETTINGS, PluginRuntime]);
  bindClass(c, ListPlugins, [PluginRecords, PluginViews]);
  bindClass(c, GetPlugin, [PluginRecords, PluginViews]);
  bindClass(c, DescribePlugin, [PluginRecords, RunningPlugins, PluginViews, BACKEND_SETTINGS]);
  bindClass(c, PluginSupervision, [PluginRuntime, RunningPlugins, CatalogService, Clock, Replication, loggerOf('supervision')]);
}
