import { Replication } from '../application/ports/replication';
import { ApprovalDesk } from '../application/approvals/approval-desk';
import { DecideApproval } from '../application/approvals/decide-approval';
import { GetApprovalRules } from '../application/approvals/get-approval-rules';
import { ListApprovals } from '../application/approvals/list-approvals';
import { SetApprovalRules } from '../application/approvals/set-approval-rules';
import { mkdirSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { join, resolve } from 'node:path';
import type { Container, ResolutionContext, ServiceIdentifier } from 'inversify';
import { readPackageVersion } from '../adapters/cli/package-version';
import { AdminSignIn } from '../adapters/http/admin-sign-in';
import { backendApi, type BackendApiUseCases } from '../adapters/http/backend-api';
import { removeStaleUploads } from '../adapters/http/package-upload';
import { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics';
import { resolveAdminToken } from '../adapters/shared/admin-token-file';
import { replicaIdFor } from '../adapters/shared/replica-id-file';
import { removeBackendInfo, writeBackendInfo } from '../adapters/shared/backend-info-file';
import { ConnectionGate, DEFAULT_CONNECTION_LIMITS } from '../adapters/shared/connection-gate';
import { processStartTime } from '../adapters/shared/process-identity';
import { raiseFileLimit } from '../adapters/system/file-limit';
import { WsAgentctlEndpoint } from '../adapters/websocket/ws-agentctl-endpoint';
import { WsAgentctlLinks } from '../adapters/websocket/ws-agentctl-links';
import { CatalogService } from '../application/catalog/catalog-service';
import { ConsoleFeed } from '../application/console/console-feed';
import { CallEvents } from '../application/invocation/call-events';
import { ConfigurePlugin } from '../application/plugins/configure-plugin';
import { DescribePlugin } from '../application/plugins/describe-plugin';
import { DisablePlugin } from '../application/plugins/disable-plugin';
import { EnablePlugin } from '../application/plugins/enable-plugin';
import { AcceptPluginTools } from '../application/plugins/accept-plugin-tools';
import { GetPlugin } from '../application/plugins/get-plugin';
import { GetPluginConfig } from '../application/plugins/get-plugin-config';
import { ConfigureWorkspace } from '../application/plugins/configure-workspace';
import { GetWorkspaceConfig } from '../application/plugins/get-workspace-config';
import { ListConfigWorkspaces } from '../application/plugins/list-config-workspaces';
import { GetPluginConfigSchema } from '../application/plugins/get-plugin-config-schema';
import { GetPluginLogs } from '../application/plugins/get-plugin-logs';
import { InstallPlugin } from '../application/plugins/install-plugin';
import { ListPlugins } from '../application/plugins/list-plugins';
import { PluginRuntime } from '../application/ports/plugin-runtime';
import { PluginViews } from '../application/plugins/plugin-views';
import { UninstallPlugin } from '../application/plugins/uninstall-plugin';
import { UpgradePlugin } from '../application/plugins/upgrade-plugin';
import { Logger } from '../application/ports/logger';
import { DeleteProfile } from '../application/scopes/delete-profile';
import { GetCatalogView } from '../application/scopes/get-catalog-view';
import { GetPluginScope } from '../application/scopes/get-plugin-scope';
import { GetProfile } from '../application/scopes/get-profile';
import { ListProfiles } from '../application/scopes/list-profiles';
import { SetPluginScope } from '../application/scopes/set-plugin-scope';
import { SetProfile } from '../application/scopes/set-profile';
import { PluginLogs } from '../application/ports/plugin-logs';
import { AgentctlRequests } from '../application/sessions/agentctl-requests';
import { ListSessions } from '../application/sessions/list-sessions';
import { PruneSessions } from '../application/sessions/prune-sessions';
import { ReissueSessionToken } from '../application/sessions/reissue-session-token';
import { SessionChanges } from '../application/sessions/session-changes';
import { StartSession } from '../application/sessions/start-session';
import { StopSession } from '../application/sessions/stop-session';
import type { BackendModule } from './backend-container';
import { BACKEND_SETTINGS } from './backend-tokens';
import { BackendListener, type LoadedTls } from './backend-listener';
import type { Disposals } from './disposals';
import type { ServeContext } from './serve-options';

/** The console's files, built by `npm run build` beside this module's folder (`dist/console`). */
const CONSOLE_DIR = resolve(__dirname, '..', 'console');

/** The admin token the API accepts (`TOOLPORT_ADMIN_TOKEN` or `<data-dir>/admin.token`). */
export const ADMIN_TOKEN: ServiceIdentifier<string> = Symbol('AdminToken');
/** The API, the console and /metrics as one request listener. */
const BACKEND_API: ServiceIdentifier<RequestListener> = Symbol('BackendApi');

/** `<data-dir>/backend.json`, written once the backend is ready and removed first at shutdown. */
export class BackendInfoFile {
  private written = false;

  constructor(
    private readonly dataDir: string,
    private readonly signIn: AdminSignIn,
  ) {}

  write(url: string): void {
    writeBackendInfo(this.dataDir, { url, pid: process.pid, start_time: processStartTime(process.pid), instance_id: this.signIn.instanceId });
    this.written = true;
  }

  remove(): void {
    if (this.written) removeBackendInfo(this.dataDir);
  }
}

/** What the listener group binds now, and what it closes first at shutdown (`inbound`). */
export interface HttpAdapters {
  bind(c: Container): void;
  inbound: BackendModule;
}

/**
 * The backend's one listener (docs/operations.md §1): the HTTP API with the admin sign-in, the
 * console and its live feed, /metrics, and the agentctl WebSocket, under the connection caps.
 * Shutdown removes backend.json and stops listening before the core stops (`inbound`), and
 * waits for the server to close only after everything else closed.
 */
export function httpAdapters(context: ServeContext, tls: LoadedTls | undefined, disposals: Disposals): HttpAdapters {
  const { dataDir, logger, options } = context;
  const adminToken = resolveAdminToken(dataDir, options.env);
  const signIn = new AdminSignIn(adminToken);
  const connections = new ConnectionGate({ ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits });
  const files = raiseFileLimit();
  logger.debug({ nofile_soft: files.limit?.soft ?? null, nofile_hard: files.limit?.hard ?? null, raised: files.raised }, 'open-file limit');
  if (files.problem) logger.warn({ problem: files.problem }, 'could not raise the open-file limit');
  const uploadDir = join(dataDir, 'tmp');
  mkdirSync(uploadDir, { recursive: true, mode: 0o700 });
  // Uploads a crashed backend left behind; safe now that this backend holds the lock.
  removeStaleUploads(uploadDir);
  const info = new BackendInfoFile(dataDir, signIn);
  let listener: BackendListener | undefined;
  disposals.add('listener closed', () => listener?.closed());
  const bind = (c: Container) => {
    c.bind(ADMIN_TOKEN).toConstantValue(adminToken);
    c.bind(BackendInfoFile).toConstantValue(info);
    bindConsoleFeed(c);
    c.bind(BACKEND_API).toDynamicValue((r) =>
      backendApi(
        apiUseCases(r),
        {
          adminToken,
          signIn,
          connections,
          uploadDir,
          about: {
            version: readPackageVersion(),
            pid: process.pid,
            // Which store, never its URL (it may hold a password): docs/http-api.md §3.
            store:
              options.store?.kind === 'postgres'
                ? { kind: 'postgres', replica_id: replicaIdFor(dataDir) }
                : { kind: 'sqlite', path: join(dataDir, 'toolport.db') },
          },
          metrics: () => r.get(PrometheusMetrics).render(),
          console: { dir: CONSOLE_DIR, feed: r.get(ConsoleFeed) },
        },
        logger.child({ component: 'api' }),
      ),
    );
    c.bind(WsAgentctlEndpoint).toResolvedValue(
      (requests: AgentctlRequests, links: WsAgentctlLinks, log: Logger) =>
        new WsAgentctlEndpoint(requests, links, log.child({ component: 'agentctl-ws' }), { pingIntervalMs: 10000, missedPongsAllowed: 2, connections }),
      [AgentctlRequests, WsAgentctlLinks, Logger],
    );
    c.bind(BackendListener).toResolvedValue(
      (api: RequestListener, agentctls: WsAgentctlEndpoint) => (listener = new BackendListener({ api, agentctls, connections }, tls)),
      [BACKEND_API, WsAgentctlEndpoint],
    );
  };
  const inbound: BackendModule = (_c, later) => {
    later.add('listener', () => listener?.stopListening());
    later.add('backend.json', () => info.remove());
  };
  return { bind, inbound };
}

/** The console's live channel, with the call counters the metrics keep. */
function bindConsoleFeed(c: Container): void {
  c.bind(ConsoleFeed).toDynamicValue((r) => {
    const replication = r.get(Replication);
    return new ConsoleFeed({
      catalog: r.get(CatalogService),
      calls: r.get(CallEvents),
      sessions: r.get(SessionChanges),
      logs: r.get(PluginLogs),
      listPlugins: r.get(ListPlugins),
      listSessions: r.get(ListSessions),
      views: r.get(PluginViews),
      processes: r.get(PluginRuntime),
      callTotals: () => r.get(PrometheusMetrics).callTotals(),
      desk: r.get(ApprovalDesk),
      listApprovals: r.get(ListApprovals),
      sharedStore: () => replication.replicaId() !== null,
      toolPrefix: r.get(BACKEND_SETTINGS).toolPrefix,
    });
  });
}

/** The use cases the HTTP API drives, from the container (exported for the HTTP tests, which run it over the in-memory core). */
export function apiUseCases(r: Pick<ResolutionContext, 'get'>): BackendApiUseCases {
  return {
    installPlugin: r.get(InstallPlugin),
    upgradePlugin: r.get(UpgradePlugin),
    enablePlugin: r.get(EnablePlugin),
    acceptPluginTools: r.get(AcceptPluginTools),
    disablePlugin: r.get(DisablePlugin),
    uninstallPlugin: r.get(UninstallPlugin),
    listPlugins: r.get(ListPlugins),
    pluginViews: r.get(PluginViews),
    getPlugin: r.get(GetPlugin),
    describePlugin: r.get(DescribePlugin),
    configurePlugin: r.get(ConfigurePlugin),
    getPluginConfig: r.get(GetPluginConfig),
    configureWorkspace: r.get(ConfigureWorkspace),
    getWorkspaceConfig: r.get(GetWorkspaceConfig),
    listConfigWorkspaces: r.get(ListConfigWorkspaces),
    getPluginConfigSchema: r.get(GetPluginConfigSchema),
    getPluginLogs: r.get(GetPluginLogs),
    catalog: r.get(CatalogService),
    startSession: r.get(StartSession),
    listSessions: r.get(ListSessions),
    stopSession: r.get(StopSession),
    pruneSessions: r.get(PruneSessions),
    reissueSessionToken: r.get(ReissueSessionToken),
    getPluginScope: r.get(GetPluginScope),
    setPluginScope: r.get(SetPluginScope),
    listProfiles: r.get(ListProfiles),
    getApprovalRules: r.get(GetApprovalRules),
    setApprovalRules: r.get(SetApprovalRules),
    listApprovals: r.get(ListApprovals),
    decideApproval: r.get(DecideApproval),
    getProfile: r.get(GetProfile),
    setProfile: r.get(SetProfile),
    deleteProfile: r.get(DeleteProfile),
    getCatalogView: r.get(GetCatalogView),
  };
}
