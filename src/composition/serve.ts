import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Container } from 'inversify';
import { AjvSchemaCompiler } from '../adapters/ajv/ajv-schema-compiler';
import { readPackageVersion } from '../adapters/cli/package-version';
import { settingsToEnv } from '../adapters/cli/settings-loader';
import { resolveAdminToken } from '../adapters/shared/admin-token-file';
import { removeBackendInfo, writeBackendInfo } from '../adapters/shared/backend-info-file';
import { processStartTime } from '../adapters/shared/process-identity';
import { DataDirLock } from '../adapters/shared/data-dir-lock';
import { openPrivateDataDir } from '../adapters/shared/private-data-dir';
import { StartLeftovers } from '../adapters/shared/start-leftovers';
import { GrpcPluginRuntime } from '../adapters/grpc/grpc-plugin-runtime';
import { GrpcHostServer } from '../adapters/grpc/host/grpc-host-server';
import { AesGcmSecretBox } from '../adapters/system/aes-gcm-secret-box';
import { loadSecretKey, SecretKeySettingError } from '../adapters/system/secret-key-file';
import { UsageError } from '../adapters/cli/exit-codes';
import { sweepPluginGroups } from '../adapters/grpc/sweep-plugin-groups';
import { AdminSignIn } from '../adapters/http/admin-sign-in';
import { ConnectionGate, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../adapters/shared/connection-gate';
import { raiseFileLimit } from '../adapters/system/file-limit';
import { backendApi } from '../adapters/http/backend-api';
import { removeStaleUploads } from '../adapters/http/package-upload';
import { FsPackageSource } from '../adapters/package/fs-package-source';
import { CountingCatalogPublisher } from '../adapters/metrics/counting-catalog-publisher';
import { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics';
import { FilePluginLogs } from '../adapters/log-files/file-plugin-logs';
import { PinoLogger } from '../adapters/pino/pino-logger';
import { pluginRecordTee } from '../adapters/pino/plugin-record-tee';
import { LOG_FORMAT_ENV, type LogFormat } from '../adapters/cli/log-format';
import { WsAgentctlEndpoint } from '../adapters/websocket/ws-agentctl-endpoint';
import { WsAgentctlLinks } from '../adapters/websocket/ws-agentctl-links';
import { ConsoleFeed } from '../application/console/console-feed';
import { CallEvents } from '../application/invocation/call-events';
import { SessionChanges } from '../application/sessions/session-changes';
import { AgentctlRequests } from '../application/sessions/agentctl-requests';
import { ProcessAgentctlLauncher } from '../adapters/process/process-agentctl-launcher';
import { SqlitePluginStore } from '../adapters/sqlite/sqlite-plugin-store';
import type { PostgresPluginStore } from '../adapters/postgres/postgres-plugin-store';
import type { StoreChoice } from '../adapters/cli/store-option';
import { CatalogService } from '../application/catalog/catalog-service';
import { ConfigurePlugin } from '../application/plugins/configure-plugin';
import { DisablePlugin } from '../application/plugins/disable-plugin';
import { EnablePlugin } from '../application/plugins/enable-plugin';
import { DescribePlugin } from '../application/plugins/describe-plugin';
import { GetPlugin } from '../application/plugins/get-plugin';
import { GetPluginConfig } from '../application/plugins/get-plugin-config';
import { GetPluginConfigSchema } from '../application/plugins/get-plugin-config-schema';
import { GetPluginLogs } from '../application/plugins/get-plugin-logs';
import { InstallPlugin } from '../application/plugins/install-plugin';
import { ListPlugins } from '../application/plugins/list-plugins';
import { UninstallPlugin } from '../application/plugins/uninstall-plugin';
import { UpgradePlugin } from '../application/plugins/upgrade-plugin';
import type { Logger } from '../application/ports/logger';
import { PluginRuntime } from '../application/ports/plugin-runtime';
import { SessionStore } from '../application/ports/session-store';
import { ListSessions } from '../application/sessions/list-sessions';
import { StartSession } from '../application/sessions/start-session';
import { ReissueSessionToken } from '../application/sessions/reissue-session-token';
import { StopSession } from '../application/sessions/stop-session';
import type { Settings } from '../application/settings';
import { BackendUrl } from '../application/sessions/backend-url';
import { replicaIdFor } from '../adapters/shared/replica-id-file';
import { createBackendContainer, openBackendCore, startBackendCore, stopBackendCore, type ReplicaParts } from './backend-container';
import { createBackendServer, ListenError, loadTls, trustFileFor, type TlsFiles } from './backend-listener';
import { startTracing } from './tracing';

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
  /** `--max-connections` and the caps on unauthenticated connections (docs/operations.md §1). */
  connectionLimits?: Partial<ConnectionLimits>;
}

export interface RunningServe {
  url: string;
  adminToken: string;
  container: Container;
  /** Graceful shutdown: agentctls and plugins stopped, sessions `stopped`, backend.json removed. */
  close(): Promise<void>;
}

/** The `bin/toolport` entry, so the backend can launch agentctls with the same build. */
const TOOLPORT_BIN = resolve(__dirname, '..', '..', 'bin', 'toolport');
/** The console's files, built by `npm run build` beside this module's folder (`dist/console`). */
const CONSOLE_DIR = resolve(__dirname, '..', 'console');
const AGENTCTL_NODE_FLAGS = '--max-semi-space-size=1';

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done(server.address() as AddressInfo);
    });
  });
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The key that seals secrets; a bad TOOLPORT_SECRET_KEY or secret.key is a usage error (exit 2) naming it. */
function secretKey(dataDir: string, env: NodeJS.ProcessEnv): Buffer {
  try {
    return loadSecretKey(dataDir, env);
  } catch (error) {
    if (error instanceof SecretKeySettingError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Runs the backend (docs/operations.md `toolport serve`) on the embedded SQLite default, or on a
 * PostgreSQL store shared with other backends (§12). backend.json
 * is written only once the listeners are up and every enabled plugin is started or in error.
 */
export async function runServe(options: ServeOptions): Promise<RunningServe> {
  const tls = loadTls(options.tls);
  const leftovers = StartLeftovers.before(options.dataDir);
  // Resolved once: every path below is under the real, checked data dir (docs/operations.md §4).
  const { dataDir, tightened } = openPrivateDataDir(options.dataDir);
  const lock = DataDirLock.acquire(dataDir);
  const { settings } = options;
  // Every record naming a plugin is also kept in that plugin's log (memory and data-dir file).
  const pluginLogs = new FilePluginLogs(join(dataDir, 'logs'));
  const logger = options.logger ?? PinoLogger.toStderr(settings.logLevel, { role: 'backend' }, { format: options.logFormat, tee: pluginRecordTee(pluginLogs) });
  for (const { path, mode } of tightened) {
    logger.warn({ path, mode: `0${mode.toString(8)}` }, 'was readable by other users; now private to the backend user');
  }
  let shared: PostgresPluginStore | undefined;
  let listening: Server | undefined;
  try {
    const secrets = new AesGcmSecretBox(secretKey(dataDir, options.env));
    // Plugin processes a killed backend left running end first, now that we hold the lock.
    const pluginGroups = join(dataDir, 'plugin-groups.json');
    const pluginTmpRoot = join(dataDir, 'plugin-tmp');
    await sweepPluginGroups(pluginGroups, pluginTmpRoot, logger.child({ component: 'runtime' }));
    const adminToken = resolveAdminToken(dataDir, options.env);
    const signIn = new AdminSignIn(adminToken);
    const connections = new ConnectionGate({ ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits });
    const files = raiseFileLimit();
    logger.debug({ nofile_soft: files.limit?.soft ?? null, nofile_hard: files.limit?.hard ?? null, raised: files.raised }, 'open-file limit');
    if (files.problem) logger.warn({ problem: files.problem }, 'could not raise the open-file limit');
    const uploadDir = join(dataDir, 'tmp');
    mkdirSync(uploadDir, { recursive: true, mode: 0o700 });
    const version = readPackageVersion();
    const schemas = new AjvSchemaCompiler();
    let metrics: PrometheusMetrics | undefined;
    const packages = new FsPackageSource(dataDir, schemas, version);
    // Staging folders and uploads a crashed backend left behind; safe now that we hold the lock.
    await packages.removeStaleStaging();
    removeStaleUploads(uploadDir);
    let replicas: ReplicaParts | undefined;
    if (options.store?.kind === 'postgres') {
      // Loaded only here: the pg driver costs about 40 ms of start-up the SQLite default need not pay.
      const postgres = await import('../adapters/postgres/postgres-replica-parts');
      ({ store: shared, ...replicas } = await postgres.openPostgresReplica(options.store.url, replicaIdFor(dataDir), logger));
    }
    const links = new WsAgentctlLinks();
    const tracer = await startTracing(options.env, 'toolport-backend', logger);
    const container = createBackendContainer({
      settings,
      logger,
      hostAccess: (sessions, requests) => {
        const host = new GrpcHostServer(sessions, requests, { runRoot: join(dataDir, 'run') }, logger.child({ component: 'host' }));
        host.removeLeftovers();
        return host;
      },
      overrides: {
        secrets: () => secrets,
        pluginLogs: () => pluginLogs,
        tracer: () => tracer,
        store: () => shared ?? new SqlitePluginStore(join(dataDir, 'toolport.db')),
        schemas: () => schemas,
        packages: () => packages,
        runtime: () =>
          new GrpcPluginRuntime(logger.child({ component: 'runtime' }), {
            startTimeoutMs: settings.pluginStartTimeoutMs,
            healthIntervalMs: settings.healthIntervalMs,
            restartBackoffMs: settings.restartBackoffMs,
            env: options.env,
            requireMtls: options.pluginRequireMtls === true,
            tmpRoot: pluginTmpRoot,
            groupRecordPath: pluginGroups,
          }),
        publisher: () => new CountingCatalogPublisher(links, () => metrics?.recordFanOutFailure()),
        launcher: () =>
          new ProcessAgentctlLauncher(
            {
              // A 1 MB young generation keeps an idle agentctl near 76 MB RSS instead of 87 MB
              // (bench/PROFILE.md); it serves one agent, so the extra scavenges cost little.
              command: { executable: process.execPath, args: [AGENTCTL_NODE_FLAGS, TOOLPORT_BIN, 'agentctl'] },
              runDir: join(dataDir, 'run'),
              // Launched agentctls share the backend's stderr, so they write in its format too.
              settingsEnv: {
                ...settingsToEnv(settings),
                [LOG_FORMAT_ENV]: options.logFormat ?? 'json',
                ...(options.tls ? { TOOLPORT_CA: trustFileFor(options.tls)! } : {}),
              },
              readyTimeoutMs: 20000,
              dataDir,
            },
            logger.child({ component: 'agentctl-launcher' }),
          ),
      },
      ...(replicas ? { replicas } : {}),
    });

    const store = container.get(SessionStore);
    const catalog = container.get(CatalogService);
    // A replica registers with its URL, so the listener comes first; until the API below is
    // ready it answers 503, and agentctls dialling that early retry.
    let handle: RequestListener = (_request, response) => {
      response.statusCode = 503;
      response.end();
    };
    const { server, scheme } = createBackendServer((request, response) => handle(request, response), tls);
    listening = server;
    connections.attach(server);
    // Nothing is open yet but the listener: the catch below closes what is, after one line on why.
    const address = await listen(server, options.host, options.port).catch((error: unknown) => {
      throw ListenError.of(error, options.host, options.port) ?? error;
    });
    const url = `${scheme}://${urlHost(options.host)}:${address.port}`;
    container.get(BackendUrl).set(url);
    await openBackendCore(container);
    const liveMetrics = new PrometheusMetrics({
      catalog: () => catalog.current(),
      liveSessions: async () => (await store.listSessions()).filter((s) => s.status === 'live' || s.status === 'starting').length,
    });
    metrics = liveMetrics;
    container.get(CallEvents).onCall((call) => liveMetrics.recordCall(call));
    container.get(PluginRuntime).onStatus((event) => liveMetrics.recordStatus(event));

    const feed = new ConsoleFeed({
      catalog,
      calls: container.get(CallEvents),
      sessions: container.get(SessionChanges),
      logs: pluginLogs,
      listPlugins: container.get(ListPlugins),
      listSessions: container.get(ListSessions),
      callTotals: () => liveMetrics.callTotals(),
      toolPrefix: settings.toolPrefix,
    });

    const app = backendApi(
      {
        installPlugin: container.get(InstallPlugin),
        upgradePlugin: container.get(UpgradePlugin),
        enablePlugin: container.get(EnablePlugin),
        disablePlugin: container.get(DisablePlugin),
        uninstallPlugin: container.get(UninstallPlugin),
        listPlugins: container.get(ListPlugins),
        getPlugin: container.get(GetPlugin),
        describePlugin: container.get(DescribePlugin),
        configurePlugin: container.get(ConfigurePlugin),
        getPluginConfig: container.get(GetPluginConfig),
        getPluginConfigSchema: container.get(GetPluginConfigSchema),
        getPluginLogs: container.get(GetPluginLogs),
        catalog,
        startSession: container.get(StartSession),
        listSessions: container.get(ListSessions),
        stopSession: container.get(StopSession),
        reissueSessionToken: container.get(ReissueSessionToken),
      },
      {
        adminToken,
        signIn,
        connections,
        toolPrefix: settings.toolPrefix,
        uploadDir,
        about: {
          version,
          pid: process.pid,
          store: shared ? { kind: 'postgres', replica_id: replicaIdFor(dataDir) } : { kind: 'sqlite', path: join(dataDir, 'toolport.db') },
        },
        metrics: () => liveMetrics.render(),
        console: { dir: CONSOLE_DIR, feed },
      },
      logger.child({ component: 'api' }),
    );
    handle = app;
    const endpoint = new WsAgentctlEndpoint(container.get(AgentctlRequests), links, logger.child({ component: 'agentctl-ws' }), {
      pingIntervalMs: 10000,
      missedPongsAllowed: 2,
      connections,
    });
    endpoint.attach(server);

    await startBackendCore(container, url);
    writeBackendInfo(dataDir, { url, pid: process.pid, start_time: processStartTime(process.pid), instance_id: signIn.instanceId });
    logger.info({ url, data_dir: dataDir }, 'backend ready');

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        logger.info({}, 'backend shutting down');
        removeBackendInfo(dataDir);
        endpoint.close();
        server.closeAllConnections();
        const closed = new Promise<void>((done) => server.close(() => done()));
        await stopBackendCore(container);
        await closed;
        lock.release();
        logger.info({}, 'backend stopped');
      })();
      return closing;
    };
    return { url, adminToken, container, close };
  } catch (error) {
    // Its pooled connections, like a listener already up, would keep the process from exiting.
    listening?.closeAllConnections();
    listening?.close();
    await shared?.close().catch(() => undefined);
    pluginLogs.close();
    leftovers.removeCreated(); // a failed start writes nothing (docs/operations.md §4)
    lock.release();
    throw error;
  }
}
