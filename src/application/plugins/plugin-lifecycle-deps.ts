import type { CatalogService } from '../catalog/catalog-service';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { Clock } from '../ports/clock';
import type { HostAccess } from '../ports/host-access';
import type { Logger } from '../ports/logger';
import type { PackageSource } from '../ports/package-source';
import type { PackageVault } from '../ports/package-vault';
import type { PluginRuntime } from '../ports/plugin-runtime';
import type { PluginRecords } from '../ports/plugin-records';
import type { SecretBox } from '../ports/secret-box';
import type { Settings } from '../settings';
import type { KeyedMutex } from '../shared/keyed-mutex';
import type { LocalCopies } from './local-copies';
import type { RunningPlugins } from './running-plugins';

/** What the plugin lifecycle use cases work with; `locks` serialises work per plugin id. */
export interface PluginLifecycleDeps {
  store: PluginRecords;
  packages: PackageSource;
  runtime: PluginRuntime;
  running: RunningPlugins;
  catalog: CatalogService;
  locks: KeyedMutex;
  clock: Clock;
  settings: Settings;
  logger: Logger;
  /** Grants each plugin process its Host API. */
  host: HostAccess;
  /** Seals and opens configurations. */
  secrets: SecretBox;
  schemas: SchemaCompiler;
  /** Package bytes in a store replicas share (docs/operations.md §10); absent for one backend alone. */
  vault?: PackageVault;
  /** This replica's own copies, on a store replicas share. */
  copies?: LocalCopies;
}
