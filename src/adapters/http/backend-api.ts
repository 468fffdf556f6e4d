import express, { type Express, type Request } from 'express';
import type { DecideApproval } from '../../application/approvals/decide-approval';
import type { GetApprovalRules } from '../../application/approvals/get-approval-rules';
import type { ListApprovals } from '../../application/approvals/list-approvals';
import type { SetApprovalRules } from '../../application/approvals/set-approval-rules';
import type { CatalogService } from '../../application/catalog/catalog-service';
import type { ConsoleFeed } from '../../application/console/console-feed';
import type { AcceptPluginTools } from '../../application/plugins/accept-plugin-tools';
import type { ConfigurePlugin } from '../../application/plugins/configure-plugin';
import type { ConfigureWorkspace } from '../../application/plugins/configure-workspace';
import type { GetWorkspaceConfig } from '../../application/plugins/get-workspace-config';
import type { ListConfigWorkspaces } from '../../application/plugins/list-config-workspaces';
import type { DescribePlugin } from '../../application/plugins/describe-plugin';
import type { DisablePlugin } from '../../application/plugins/disable-plugin';
import type { EnablePlugin } from '../../application/plugins/enable-plugin';
import type { GetPlugin } from '../../application/plugins/get-plugin';
import type { GetPluginConfig } from '../../application/plugins/get-plugin-config';
import type { GetPluginConfigSchema } from '../../application/plugins/get-plugin-config-schema';
import type { GetPluginLogs } from '../../application/plugins/get-plugin-logs';
import type { InstallPlugin } from '../../application/plugins/install-plugin';
import type { ListPlugins } from '../../application/plugins/list-plugins';
import type { PluginViews } from '../../application/plugins/plugin-views';
import type { UninstallPlugin } from '../../application/plugins/uninstall-plugin';
import type { UpgradePlugin } from '../../application/plugins/upgrade-plugin';
import type { Logger } from '../../application/ports/logger';
import type { DeleteProfile } from '../../application/scopes/delete-profile';
import type { GetCatalogView } from '../../application/scopes/get-catalog-view';
import type { GetPluginScope } from '../../application/scopes/get-plugin-scope';
import type { GetProfile } from '../../application/scopes/get-profile';
import type { ListProfiles } from '../../application/scopes/list-profiles';
import type { SetPluginScope } from '../../application/scopes/set-plugin-scope';
import type { SetProfile } from '../../application/scopes/set-profile';
import type { ListSessions } from '../../application/sessions/list-sessions';
import type { PruneSessions } from '../../application/sessions/prune-sessions';
import type { StartSession } from '../../application/sessions/start-session';
import type { ReissueSessionToken } from '../../application/sessions/reissue-session-token';
import type { StopSession } from '../../application/sessions/stop-session';
import type { BackendStore } from '../../api';
import { apiRouter } from './api-router';
import type { ConnectionGate } from '../shared/connection-gate';
import { AdminSignIn } from './admin-sign-in';
import { requireBearer } from './bearer-auth';
import { configValuesOf, workspaceQueryOf } from './config-body';
import { decisionReasonOf } from './decision-body';
import { catalogViewOf } from './catalog-view-query';
import { consoleEventStream } from './console-event-stream';
import { consoleSite, isConsolePath } from './console-site';
import { logLimitOf } from './log-limit';
import { errorHandler, sendError } from './http-errors';
import { readPackageRequest, type PackageRequest } from './package-upload';
import { pruneOlderThanMsOf } from './prune-sessions-body';
import { startSessionRequestOf } from './start-session-body';

/** The use cases the operator API drives. */
export interface BackendApiUseCases {
  installPlugin: InstallPlugin;
  upgradePlugin: UpgradePlugin;
  enablePlugin: EnablePlugin;
  disablePlugin: DisablePlugin;
  acceptPluginTools: AcceptPluginTools;
  uninstallPlugin: UninstallPlugin;
  listPlugins: ListPlugins;
  /** How each record answer is built (install, upgrade, enable, disable, config answer one). */
  pluginViews: PluginViews;
  getPlugin: GetPlugin;
  describePlugin: DescribePlugin;
  configurePlugin: ConfigurePlugin;
  getPluginConfig: GetPluginConfig;
  getPluginConfigSchema: GetPluginConfigSchema;
  configureWorkspace: ConfigureWorkspace;
  getWorkspaceConfig: GetWorkspaceConfig;
  listConfigWorkspaces: ListConfigWorkspaces;
  getPluginLogs: GetPluginLogs;
  catalog: CatalogService;
  startSession: StartSession;
  listSessions: ListSessions;
  stopSession: StopSession;
  pruneSessions: PruneSessions;
  reissueSessionToken: ReissueSessionToken;
  getPluginScope: GetPluginScope;
  setPluginScope: SetPluginScope;
  listProfiles: ListProfiles;
  getProfile: GetProfile;
  setProfile: SetProfile;
  deleteProfile: DeleteProfile;
  getCatalogView: GetCatalogView;
  getApprovalRules: GetApprovalRules;
  setApprovalRules: SetApprovalRules;
  listApprovals: ListApprovals;
  decideApproval: DecideApproval;
}

export interface BackendApiOptions {
  adminToken: string;
  /** The admin sign-in (docs/http-api.md §1) whose credentials the API accepts besides the token; one of its own when not given. */
  signIn?: AdminSignIn;
  /** The listener's connection counts (docs/operations.md §1): an authorized request's connection counts as authenticated. */
  connections?: ConnectionGate;
  /** Where uploaded `.tgz` bodies are written before they are read. */
  uploadDir: string;
  /** Prometheus text for `GET /metrics`, when metrics are wired. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** What `GET /api/v1/backend` answers about this process (`toolport status`). */
  about?: { version: string; pid: number; store?: BackendStore };
  /** The console: its built files (served under `/console/`) and its live channel. */
  console?: { dir: string; feed: ConsoleFeed };
}

/** The docs/http-api.md HTTP API. The admin token is checked before routing or body parsing. */
export function backendApi(useCases: BackendApiUseCases, options: BackendApiOptions, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.console) app.use(consoleSite(options.console.dir));
  const signIn = options.signIn ?? new AdminSignIn(options.adminToken);
  app.use(signIn.router());
  app.use(
    requireBearer(
      (header) => signIn.authorizes(header),
      (path) => path === '/healthz' || (options.console !== undefined && isConsolePath(path)),
      (socket) => options.connections?.promote(socket) ?? true,
    ),
  );
  app.use(express.json({ limit: '1mb', type: ['application/json', '+json'] }));
  const id = (req: Request) => String(req.params.id);
  const name = (req: Request) => String(req.params.name);
  /** Runs `use` on the request's package; an uploaded copy is removed whatever happens. */
  const withPackage = async <T>(req: Request, use: (pkg: Omit<PackageRequest, 'cleanup'>) => Promise<T>): Promise<T> => {
    const pkg = await readPackageRequest(req, options.uploadDir);
    try {
      return await use({ path: pkg.path, sha256: pkg.sha256, force: pkg.force, grants: pkg.grants, ...(pkg.id !== undefined ? { id: pkg.id } : {}) });
    } finally {
      pkg.cleanup();
    }
  };

  const api = apiRouter(app);
  api.answer('GET /healthz', () => ({ status: 'ok' }));
  app.get('/metrics', async (_req, res) => {
    if (!options.metrics) return sendError(res, 404, 'NOT_FOUND', 'metrics are not enabled');
    const { contentType, body } = await options.metrics();
    res.type(contentType).send(body);
  });

  api.answer('GET /api/v1/backend', () => ({ version: options.about?.version ?? null, pid: options.about?.pid ?? null, store: options.about?.store ?? null }));
  api.answer('GET /api/v1/plugins', () => useCases.listPlugins.execute());
  api.answer('GET /api/v1/plugins/:id', (req) => useCases.getPlugin.execute(id(req)));
  api.answer('GET /api/v1/plugins/:id/info', (req) => useCases.describePlugin.execute(id(req)));
  api.serve('POST /api/v1/plugins', async (req, send) => {
    let forced = false;
    const record = await withPackage(req, (pkg) => {
      forced = pkg.force;
      return useCases.installPlugin.execute(pkg);
    });
    // A forced install may replace what is there, so it answers as an upgrade does.
    send(forced ? 200 : 201, await useCases.pluginViews.one(record));
  });
  api.serve('PUT /api/v1/plugins/:id', async (req, send) => {
    const record = await withPackage(req, (pkg) =>
      useCases.upgradePlugin.execute({ pluginId: id(req), path: pkg.path, sha256: pkg.sha256, grants: pkg.grants }),
    );
    send(200, await useCases.pluginViews.one(record));
  });
  api.answer('POST /api/v1/plugins/:id/enable', async (req) => useCases.pluginViews.one(await useCases.enablePlugin.execute(id(req))));
  api.answer('POST /api/v1/plugins/:id/tools/accept', async (req) => useCases.pluginViews.one(await useCases.acceptPluginTools.execute(id(req))));
  api.answer('POST /api/v1/plugins/:id/disable', async (req) => useCases.pluginViews.one(await useCases.disablePlugin.execute(id(req))));
  api.serve('DELETE /api/v1/plugins/:id', async (req, send) => {
    await useCases.uninstallPlugin.execute(id(req));
    send(204, null);
  });

  api.answer('GET /api/v1/plugins/:id/config', (req) => {
    const workspaceId = workspaceQueryOf(req.query);
    return workspaceId === undefined ? useCases.getPluginConfig.execute(id(req)) : useCases.getWorkspaceConfig.execute(id(req), workspaceId);
  });
  api.answer('PUT /api/v1/plugins/:id/config', async (req) => {
    const [pluginId, workspaceId] = [id(req), workspaceQueryOf(req.query)];
    const values = configValuesOf(req.body);
    const record =
      workspaceId === undefined
        ? await useCases.configurePlugin.execute({ pluginId, values })
        : await useCases.configureWorkspace.execute({ pluginId, workspaceId, values });
    return useCases.pluginViews.one(record);
  });
  api.answer('GET /api/v1/plugins/:id/config/workspaces', (req) => useCases.listConfigWorkspaces.execute(id(req)));
  api.answer('GET /api/v1/plugins/:id/config/schema', (req) => useCases.getPluginConfigSchema.execute(id(req)));
  api.answer('GET /api/v1/plugins/:id/logs', (req) => useCases.getPluginLogs.execute(id(req), logLimitOf(req.query.limit)));
  api.answer('GET /api/v1/plugins/:id/scope', (req) => useCases.getPluginScope.execute(id(req)));
  api.answer('PUT /api/v1/plugins/:id/scope', (req) => useCases.setPluginScope.execute({ pluginId: id(req), body: req.body }));
  api.answer('GET /api/v1/catalog', (req) => {
    const view = catalogViewOf(req.query);
    return view ? useCases.getCatalogView.execute(view) : useCases.catalog.current();
  });
  api.answer('GET /api/v1/profiles', () => useCases.listProfiles.execute());
  api.answer('GET /api/v1/profiles/:name', (req) => useCases.getProfile.execute(name(req)));
  api.answer('PUT /api/v1/profiles/:name', (req) => useCases.setProfile.execute({ name: name(req), body: req.body }));
  api.serve('DELETE /api/v1/profiles/:name', async (req, send) => {
    await useCases.deleteProfile.execute(name(req));
    send(204, null);
  });

  api.answer('GET /api/v1/approval-rules', () => useCases.getApprovalRules.execute());
  api.answer('PUT /api/v1/approval-rules', (req) => useCases.setApprovalRules.execute(req.body));
  api.answer('GET /api/v1/approvals', () => useCases.listApprovals.execute());
  api.answer('POST /api/v1/approvals/:id/approve', (req) =>
    useCases.decideApproval.execute({ id: id(req), decision: 'approved', reason: decisionReasonOf(req.body) }),
  );
  api.answer('POST /api/v1/approvals/:id/deny', (req) =>
    useCases.decideApproval.execute({ id: id(req), decision: 'denied', reason: decisionReasonOf(req.body) }),
  );

  if (options.console) app.get('/api/v1/events', consoleEventStream(options.console.feed));

  api.serve('POST /api/v1/sessions', async (req, send) => {
    send(201, await useCases.startSession.execute(startSessionRequestOf(req.body)));
  });
  api.answer('GET /api/v1/sessions', () => useCases.listSessions.execute());
  api.answer('POST /api/v1/sessions/prune', async (req) => ({ removed: await useCases.pruneSessions.execute(pruneOlderThanMsOf(req.body)) }));
  api.serve('DELETE /api/v1/sessions/:id', async (req, send) => {
    await useCases.stopSession.execute(id(req));
    send(204, null);
  });
  api.answer('POST /api/v1/sessions/:id/token', (req) => useCases.reissueSessionToken.execute(id(req)));

  app.use((req, res) => sendError(res, 404, 'NOT_FOUND', `no route ${req.method} ${req.path}`));
  app.use(errorHandler((fields, message) => logger.error(fields, message)));
  return app;
}
