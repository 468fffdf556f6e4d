import type { ApprovalRequest, ApprovalRule, DecidedApprovalRequest } from './approvals';
import type { BackendAbout, Health, SignedIn, SignInChallenge } from './backend';
import type { Catalog } from './domain-shapes';
import type { LogRecord, PluginConfig, PluginConfigSchema, PluginConfigWorkspaces, PluginDetails, PluginRecord } from './plugins';
import type { PluginScope, Profile } from './scopes';
import type { SessionRecord, SessionsPruned, StartedSession } from './sessions';

/**
 * What each JSON route answers on success (docs/http-api.md §3), by method and path; `null`
 * for an answer with no body (204). The backend registers its routes by these keys, so the
 * compiler holds what a route sends to what is declared here, field for field.
 */
export interface ApiRoutes {
  'GET /healthz': Health;
  'GET /api/v1/backend': BackendAbout;
  'POST /api/v1/auth/begin': SignInChallenge;
  'POST /api/v1/auth/finish': SignedIn;
  'GET /api/v1/plugins': PluginRecord[];
  'POST /api/v1/plugins': PluginRecord;
  'GET /api/v1/plugins/:id': PluginRecord;
  'PUT /api/v1/plugins/:id': PluginRecord;
  'DELETE /api/v1/plugins/:id': null;
  'GET /api/v1/plugins/:id/info': PluginDetails;
  'POST /api/v1/plugins/:id/enable': PluginRecord;
  'POST /api/v1/plugins/:id/disable': PluginRecord;
  'POST /api/v1/plugins/:id/tools/accept': PluginRecord;
  'GET /api/v1/plugins/:id/config': PluginConfig;
  'PUT /api/v1/plugins/:id/config': PluginRecord;
  'GET /api/v1/plugins/:id/config/schema': PluginConfigSchema;
  'GET /api/v1/plugins/:id/config/workspaces': PluginConfigWorkspaces;
  'GET /api/v1/plugins/:id/logs': LogRecord[];
  'GET /api/v1/plugins/:id/scope': PluginScope;
  'PUT /api/v1/plugins/:id/scope': PluginScope;
  'GET /api/v1/catalog': Catalog;
  'GET /api/v1/profiles': Profile[];
  'GET /api/v1/profiles/:name': Profile;
  'PUT /api/v1/profiles/:name': Profile;
  'DELETE /api/v1/profiles/:name': null;
  'GET /api/v1/approval-rules': ApprovalRule[];
  'PUT /api/v1/approval-rules': ApprovalRule[];
  'GET /api/v1/approvals': ApprovalRequest[];
  'POST /api/v1/approvals/:id/approve': DecidedApprovalRequest;
  'POST /api/v1/approvals/:id/deny': DecidedApprovalRequest;
  'POST /api/v1/sessions': StartedSession;
  'GET /api/v1/sessions': SessionRecord[];
  'POST /api/v1/sessions/prune': SessionsPruned;
  'DELETE /api/v1/sessions/:id': null;
  'POST /api/v1/sessions/:id/token': StartedSession;
}

export type ApiRoute = keyof ApiRoutes;

/** The `:name` parameters of a route's path (`'id'` for `GET /api/v1/plugins/:id/config`). */
export type RouteParams<R extends string> = R extends `${string}:${infer Name}/${infer Rest}`
  ? Name | RouteParams<`/${Rest}`>
  : R extends `${string}:${infer Name}`
    ? Name
    : never;
