import type { Container } from 'inversify';
import { CatalogService } from '../application/catalog/catalog-service';
import { SoleBackend } from '../application/catalog/sole-backend';
import { BootPlugins } from '../application/plugins/boot-plugins';
import { ConfigurePlugin } from '../application/plugins/configure-plugin';
import { DescribePlugin } from '../application/plugins/describe-plugin';
import { DisablePlugin } from '../application/plugins/disable-plugin';
import { EnablePlugin } from '../application/plugins/enable-plugin';
import { GetPlugin } from '../application/plugins/get-plugin';
import { GetPluginConfig } from '../application/plugins/get-plugin-config';
import { GetPluginConfigSchema } from '../application/plugins/get-plugin-config-schema';
import { GetPluginLogs } from '../application/plugins/get-plugin-logs';
import { InstallPlugin } from '../application/plugins/install-plugin';
import { LaunchSpecs } from '../application/plugins/launch-spec';
import { ListPlugins } from '../application/plugins/list-plugins';
import { NoPackageSharing } from '../application/plugins/no-package-sharing';
import { PluginViews } from '../application/plugins/plugin-views';
import { PluginSupervision } from '../application/plugins/plugin-supervision';
import { RunningPlugins } from '../application/plugins/running-plugins';
import { StoredConfigurations } from '../application/plugins/stored-configuration';
import { UninstallPlugin } from '../application/plugins/uninstall-plugin';
import { UpgradePlugin } from '../application/plugins/upgrade-plugin';
import { Clock } from '../application/ports/clock';
import { HostAccess } from '../application/ports/host-access';
import { IdGenerator } from '../application/ports/id-generator';
import { Logger } from '../application/ports/logger';
import { PackageSharing } from '../application/ports/package-sharing';
import { InstalledPackages } from '../application/ports/installed-packages';
import { PackageStaging } from '../application/ports/package-staging';
import type { PackageVault } from '../application/ports/package-vault';
import { PluginLogs } from '../application/ports/plugin-logs';
import { PluginRecords } from '../application/ports/plugin-records';
import { PluginRuntime } from '../application/ports/plugin-runtime';
import type { ReplicaRoster } from '../application/ports/replica-roster';
import { Replication } from '../application/ports/replication';
import { SecretBox } from '../application/ports/secret-box';
import type { StoreChanges } from '../application/ports/store-changes';
import { FollowReplicas } from '../application/replicas/follow-replicas';
import { LocalCopies } from '../application/replicas/local-copies';
import { ReconcileCopies } from '../application/replicas/reconcile-copies';
import { SharedStoreReplication } from '../application/replicas/shared-store-replication';
import { VaultPackageSharing } from '../application/replicas/vault-package-sharing';
import { BackendUrl } from '../application/sessions/backend-url';
import { ReconcileSessions } from '../application/sessions/reconcile-sessions';
import type { Settings } from '../application/settings';
import { KeyedMutex } from '../application/shared/keyed-mutex';
import { SchemaCompiler } from '../domain/schema-compiler';

/** The shared store's replica parts, all on the same store. */
export interface ReplicaParts {
  roster: ReplicaRoster;
  changes: StoreChanges;
  vault: PackageVault;
}

/** The helpers the plugin lifecycle use cases share: running instances, per-plugin locks, launch specs, stored configurations. */
function bindPluginHelpers(c: Container): void {
  c.bind(RunningPlugins).toResolvedValue(() => new RunningPlugins());
  c.bind(KeyedMutex).toResolvedValue(() => new KeyedMutex());
  c.bind(LaunchSpecs).toResolvedValue((installed: InstalledPackages, host: HostAccess) => new LaunchSpecs(installed, host), [InstalledPackages, HostAccess]);
  c.bind(StoredConfigurations).toResolvedValue(
    (records: PluginRecords, secrets: SecretBox, schemas: SchemaCompiler) => new StoredConfigurations(records, secrets, schemas),
    [PluginRecords, SecretBox, SchemaCompiler],
  );
}

/**
 * Replica mode (docs/operations.md §10): on a shared store the roster, the copies, the vault and
 * the following of other replicas; for a backend alone, the null objects.
 */
function bindReplication(c: Container, replicas: ReplicaParts | undefined): void {
  if (!replicas) {
    c.bind(Replication).toResolvedValue((records: PluginRecords) => new SoleBackend(records), [PluginRecords]);
    c.bind(PackageSharing).toResolvedValue(() => new NoPackageSharing());
    return;
  }
  c.bind(LocalCopies).toResolvedValue((running: RunningPlugins) => new LocalCopies(running), [RunningPlugins]);
  c.bind(Replication).toResolvedValue(
    (copies: LocalCopies, url: BackendUrl) => new SharedStoreReplication(replicas.roster, copies, url, process.pid),
    [LocalCopies, BackendUrl],
  );
  c.bind(PackageSharing).toResolvedValue(
    (packages: PackageStaging, installed: InstalledPackages, logger: Logger) =>
      new VaultPackageSharing(replicas.vault, packages, installed, logger.child({ component: 'plugins' })),
    [PackageStaging, InstalledPackages, Logger],
  );
  c.bind(ReconcileCopies).toResolvedValue(
    (
      copies: LocalCopies,
      records: PluginRecords,
      configurations: StoredConfigurations,
      packages: InstalledPackages,
      sharing: PackageSharing,
      runtime: PluginRuntime,
      running: RunningPlugins,
      launch: LaunchSpecs,
      catalog: CatalogService,
      locks: KeyedMutex,
      logger: Logger,
    ) =>
      new ReconcileCopies(
        replicas.roster,
        copies,
        records,
        configurations,
        packages,
        sharing,
        runtime,
        running,
        launch,
        catalog,
        locks,
        logger.child({ component: 'plugins' }),
      ),
    [
      LocalCopies,
      PluginRecords,
      StoredConfigurations,
      InstalledPackages,
      PackageSharing,
      PluginRuntime,
      RunningPlugins,
      LaunchSpecs,
      CatalogService,
      KeyedMutex,
      Logger,
    ],
  );
  c.bind(FollowReplicas).toResolvedValue(
    (reconcile: ReconcileCopies, catalog: CatalogService, url: BackendUrl, logger: Logger, sessions: ReconcileSessions) =>
      new FollowReplicas(replicas.roster, replicas.changes, reconcile, catalog, url, logger.child({ component: 'replicas' }), sessions),
    [ReconcileCopies, CatalogService, BackendUrl, Logger, ReconcileSessions],
  );
}

/** The use cases that change plugins, each given the ports it uses. */
function bindLifecycle(c: Container, settings: Settings): void {
  const log = (logger: Logger) => logger.child({ component: 'plugins' });
  c.bind(UpgradePlugin).toResolvedValue(
    (
      packages: PackageStaging,
      installed: InstalledPackages,
      records: PluginRecords,
      configurations: StoredConfigurations,
      runtime: PluginRuntime,
      running: RunningPlugins,
      launch: LaunchSpecs,
      catalog: CatalogService,
      locks: KeyedMutex,
      clock: Clock,
      sharing: PackageSharing,
      logger: Logger,
    ) => new UpgradePlugin(packages, installed, records, configurations, runtime, running, launch, catalog, locks, clock, sharing, settings, log(logger)),
    [
      PackageStaging,
      InstalledPackages,
      PluginRecords,
      StoredConfigurations,
      PluginRuntime,
      RunningPlugins,
      LaunchSpecs,
      CatalogService,
      KeyedMutex,
      Clock,
      PackageSharing,
      Logger,
    ],
  );
  c.bind(InstallPlugin).toResolvedValue(
    (
      packages: PackageStaging,
      installed: InstalledPackages,
      records: PluginRecords,
      runtime: PluginRuntime,
      running: RunningPlugins,
      launch: LaunchSpecs,
      catalog: CatalogService,
      locks: KeyedMutex,
      clock: Clock,
      schemas: SchemaCompiler,
      sharing: PackageSharing,
      upgrade: UpgradePlugin,
      logger: Logger,
    ) => new InstallPlugin(packages, installed, records, runtime, running, launch, catalog, locks, clock, schemas, sharing, upgrade, settings, log(logger)),
    [
      PackageStaging,
      InstalledPackages,
      PluginRecords,
      PluginRuntime,
      RunningPlugins,
      LaunchSpecs,
      CatalogService,
      KeyedMutex,
      Clock,
      SchemaCompiler,
      PackageSharing,
      UpgradePlugin,
      Logger,
    ],
  );
  c.bind(EnablePlugin).toResolvedValue(
    (
      records: PluginRecords,
      configurations: StoredConfigurations,
      runtime: PluginRuntime,
      running: RunningPlugins,
      launch: LaunchSpecs,
      catalog: CatalogService,
      locks: KeyedMutex,
      clock: Clock,
      replication: Replication,
      logger: Logger,
    ) => new EnablePlugin(records, configurations, runtime, running, launch, catalog, locks, clock, replication, settings, log(logger)),
    [PluginRecords, StoredConfigurations, PluginRuntime, RunningPlugins, LaunchSpecs, CatalogService, KeyedMutex, Clock, Replication, Logger],
  );
  c.bind(DisablePlugin).toResolvedValue(
    (runtime: PluginRuntime, running: RunningPlugins, catalog: CatalogService, locks: KeyedMutex, clock: Clock, logger: Logger) =>
      new DisablePlugin(runtime, running, catalog, locks, clock, log(logger)),
    [PluginRuntime, RunningPlugins, CatalogService, KeyedMutex, Clock, Logger],
  );
  c.bind(UninstallPlugin).toResolvedValue(
    (
      packages: InstalledPackages,
      runtime: PluginRuntime,
      running: RunningPlugins,
      catalog: CatalogService,
      locks: KeyedMutex,
      sharing: PackageSharing,
      logger: Logger,
    ) => new UninstallPlugin(packages, runtime, running, catalog, locks, sharing, log(logger)),
    [InstalledPackages, PluginRuntime, RunningPlugins, CatalogService, KeyedMutex, PackageSharing, Logger],
  );
  c.bind(BootPlugins).toResolvedValue(
    (
      records: PluginRecords,
      configurations: StoredConfigurations,
      packages: InstalledPackages,
      runtime: PluginRuntime,
      running: RunningPlugins,
      launch: LaunchSpecs,
      catalog: CatalogService,
      locks: KeyedMutex,
      clock: Clock,
      sharing: PackageSharing,
      replication: Replication,
      logger: Logger,
    ) => new BootPlugins(records, configurations, packages, runtime, running, launch, catalog, locks, clock, sharing, replication, settings, log(logger)),
    [
      PluginRecords,
      StoredConfigurations,
      InstalledPackages,
      PluginRuntime,
      RunningPlugins,
      LaunchSpecs,
      CatalogService,
      KeyedMutex,
      Clock,
      PackageSharing,
      Replication,
      Logger,
    ],
  );
  c.bind(ConfigurePlugin).toResolvedValue(
    (
      records: PluginRecords,
      configurations: StoredConfigurations,
      runtime: PluginRuntime,
      running: RunningPlugins,
      launch: LaunchSpecs,
      catalog: CatalogService,
      locks: KeyedMutex,
      clock: Clock,
      secrets: SecretBox,
      schemas: SchemaCompiler,
      logger: Logger,
    ) => new ConfigurePlugin(records, configurations, runtime, running, launch, catalog, locks, clock, secrets, schemas, settings, log(logger)),
    [PluginRecords, StoredConfigurations, PluginRuntime, RunningPlugins, LaunchSpecs, CatalogService, KeyedMutex, Clock, SecretBox, SchemaCompiler, Logger],
  );
}

/** The catalog, the plugin lifecycle, the reads of plugins and supervision; replica mode or its null objects. */
export function bindPluginCore(c: Container, settings: Settings, replicas: ReplicaParts | undefined): void {
  bindPluginHelpers(c);
  bindReplication(c, replicas);
  c.bind(CatalogService).toResolvedValue(
    (records: PluginRecords, ids: IdGenerator, logger: Logger, replication: Replication) =>
      new CatalogService(records, ids, settings, logger.child({ component: 'catalog' }), replication),
    [PluginRecords, IdGenerator, Logger, Replication],
  );
  bindLifecycle(c, settings);
  c.bind(GetPluginConfig).toResolvedValue(
    (store: PluginRecords, secrets: SecretBox, schemas: SchemaCompiler) => new GetPluginConfig(store, { secrets, schemas }),
    [PluginRecords, SecretBox, SchemaCompiler],
  );
  c.bind(GetPluginConfigSchema).toResolvedValue((store: PluginRecords) => new GetPluginConfigSchema(store), [PluginRecords]);
  c.bind(GetPluginLogs).toResolvedValue((store: PluginRecords, logs: PluginLogs) => new GetPluginLogs(store, logs), [PluginRecords, PluginLogs]);
  c.bind(PluginViews).toResolvedValue(
    (running: RunningPlugins, replication: Replication) => new PluginViews(running, replication, settings),
    [RunningPlugins, Replication],
  );
  c.bind(ListPlugins).toResolvedValue((store: PluginRecords, views: PluginViews) => new ListPlugins(store, views), [PluginRecords, PluginViews]);
  c.bind(GetPlugin).toResolvedValue((store: PluginRecords, views: PluginViews) => new GetPlugin(store, views), [PluginRecords, PluginViews]);
  c.bind(DescribePlugin).toResolvedValue(
    (store: PluginRecords, running: RunningPlugins, views: PluginViews) => new DescribePlugin(store, running, views, settings),
    [PluginRecords, RunningPlugins, PluginViews],
  );
  c.bind(PluginSupervision).toResolvedValue(
    (runtime: PluginRuntime, running: RunningPlugins, catalog: CatalogService, clock: Clock, replication: Replication, logger: Logger) =>
      new PluginSupervision(runtime, running, catalog, clock, replication, logger.child({ component: 'supervision' })),
    [PluginRuntime, RunningPlugins, CatalogService, Clock, Replication, Logger],
  );
}
