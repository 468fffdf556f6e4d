import type { Container } from 'inversify';
import { DataDirLock } from '../adapters/shared/data-dir-lock';
import { PLUGIN_ROOT } from '../adapters/grpc/sandbox/plugin-root';
import { openPrivateDataDir } from '../adapters/shared/private-data-dir';
import { StartLeftovers } from '../adapters/shared/start-leftovers';
import { StartBackend } from '../application/backend/start-backend';
import { CatalogService } from '../application/catalog/catalog-service';
import { BackendUrl } from '../application/sessions/backend-url';
import { agentctlAdapters } from './backend-agentctl-bindings';
import { createBackendContainer } from './backend-container';
import { ADMIN_TOKEN, BackendInfoFile, httpAdapters } from './backend-http-bindings';
import { BackendListener, loadTls, type LoadedTls } from './backend-listener';
import { observabilityAdapters, openBackendLogs, type BackendLogs } from './backend-observability-bindings';
import { pluginProcessAdapters, runsPluginUids } from './backend-runtime-bindings';
import { openBackendStore } from './backend-store-bindings';
import { systemAdapters } from './backend-system-bindings';
import { Disposals } from './disposals';
import type { ServeContext, ServeOptions } from './serve-options';

export type { ServeOptions } from './serve-options';

export interface RunningServe {
  url: string;
  adminToken: string;
  container: Container;
  /** Graceful shutdown: agentctls and plugins stopped, sessions `stopped`, backend.json removed. */
  close(): Promise<void>;
}

/**
 * Runs the backend (docs/operations.md `toolport serve`) on the embedded SQLite default, or on a
 * PostgreSQL store shared with other backends (§10). backend.json is written only once the
 * listeners are up and every enabled plugin is started or in error. Everything it opens is
 * closed by the container's disposals, in reverse order; a start that fails closes what it
 * opened, after one line on why.
 */
export async function runServe(options: ServeOptions): Promise<RunningServe> {
  const tls = loadTls(options.tls);
  // The plugin folders may move between layouts at start (docs/operations.md §4): a failed start keeps what they hold.
  const leftovers = StartLeftovers.before(options.dataDir, [PLUGIN_ROOT, 'plugins', 'plugin-data']);
  // Resolved once: every path below is under the real, checked data dir (docs/operations.md §4).
  const { dataDir, tightened } = openPrivateDataDir(options.dataDir, undefined, { traversable: runsPluginUids(options) ? [PLUGIN_ROOT] : [] });
  const lock = DataDirLock.acquire(dataDir);
  const logs = openBackendLogs(options, dataDir);
  const { logger } = logs;
  for (const { path, mode } of tightened) {
    logger.warn({ path, mode: `0${mode.toString(8)}` }, 'was readable by other users; now private to the backend user');
  }
  const disposals = new Disposals(logger);
  disposals.add('data dir lock', () => lock.release());
  let ready = false;
  // A failed start writes nothing (docs/operations.md §4): what it created goes, while the lock is still held.
  disposals.add('what a failed start wrote', () => (ready ? undefined : leftovers.removeCreated()));
  try {
    const container = await createServeContainer({ options, dataDir, logger }, logs, tls, disposals);
    const url = await startServing(container, options);
    ready = true;
    logger.info({ url, data_dir: dataDir }, 'backend ready');
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        logger.info({}, 'backend shutting down');
        await disposals.disposeAll();
        logger.info({}, 'backend stopped');
      })());
    return { url, adminToken: container.get(ADMIN_TOKEN), container, close };
  } catch (error) {
    await disposals.disposeAll();
    throw error;
  }
}

/**
 * The backend's container over the real adapters, one binding group each, in the order their
 * disposals must run backwards: the lock, the listener's last wait, the plugin logs and the
 * spans, the store, the Host API; then the core; then the listener and backend.json.
 */
async function createServeContainer(context: ServeContext, logs: BackendLogs, tls: LoadedTls | undefined, disposals: Disposals): Promise<Container> {
  const system = systemAdapters(context);
  const http = httpAdapters(context, tls, disposals);
  const observability = await observabilityAdapters(context.options, logs, disposals);
  const store = await openBackendStore(context, disposals);
  const processes = await pluginProcessAdapters(context, system.schemas, disposals);
  const agentctls = agentctlAdapters(context);
  return createBackendContainer({
    settings: context.options.settings,
    logger: context.logger,
    disposals,
    adapters: (c) => {
      system.bind(c);
      observability(c);
      store.bind(c);
      processes(c);
      agentctls(c);
      http.bind(c);
    },
    inbound: http.inbound,
    ...(store.replicas ? { replicas: store.replicas } : {}),
  });
}

/**
 * Listen, open this start's catalog generation (a replica registers with its URL, so the
 * listener comes first and answers 503 until then), start the core, then write backend.json.
 */
async function startServing(c: Container, options: ServeOptions): Promise<string> {
  // Resolving the listener builds the API and the store under it, so a store that cannot be opened fails here, before listening.
  const listener = c.get(BackendListener);
  const address = await listener.listen(options.host, options.port);
  const url = `${listener.scheme}://${urlHost(options.host)}:${address.port}`;
  c.get(BackendUrl).set(url);
  await c.get(CatalogService).open();
  listener.open();
  await c.get(StartBackend).execute(url);
  c.get(BackendInfoFile).write(url);
  return url;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
