import type { LogFormat } from '../adapters/cli/log-format';
import type { PluginSandboxChoice, PluginUidRange } from '../adapters/cli/sandbox-options';
import type { StoreChoice } from '../adapters/cli/store-option';
import type { ConnectionLimits } from '../adapters/shared/connection-gate';
import type { Logger } from '../application/ports/logger';
import type { Settings } from '../application/settings';
import type { TlsFiles } from './backend-listener';

export interface ServeOptions {
  dataDir: string;
  host: string;
  port: number;
  /** The embedded SQLite file by default; PostgreSQL with `--store` (docs/operations.md §10). */
  store?: StoreChoice;
  settings: Settings;
  env: NodeJS.ProcessEnv;
  /** Serve https and wss with this certificate and key. */
  tls?: TlsFiles;
  logger?: Logger;
  /** How the backend's own records are written on stderr (JSON when not said). */
  logFormat?: LogFormat;
  /** Refuse plugins that answer without mutual TLS (`--plugin-require-mtls`). */
  pluginRequireMtls?: boolean;
  /** `--plugin-sandbox`: bubblewrap where possible (default), always, or never (docs/operations.md). */
  pluginSandbox?: PluginSandboxChoice;
  /** `--plugin-uids`: a root backend's user ids for plugins. */
  pluginUids?: PluginUidRange;
  /** `--max-connections` and the caps on unauthenticated connections (docs/operations.md §1). */
  connectionLimits?: Partial<ConnectionLimits>;
}

/** What every binding group of `serve` is given: the options, and the data dir resolved once. */
export interface ServeContext {
  options: ServeOptions;
  /** The real, checked data dir (docs/operations.md §4): every path is under it. */
  dataDir: string;
  logger: Logger;
}
