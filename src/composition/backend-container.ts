import { ServerToolPins } from '../application/plugins/server-tool-pins';
import { Container, type ServiceIdentifier } from 'inversify';
import { ScramLinkProof } from '../adapters/websocket/scram-link-proof';
import { OtherReplicas } from '../application/backend/other-replicas';
import { StartBackend } from '../application/backend/start-backend';
import { StopBackend } from '../application/backend/stop-backend';
import { CatalogFanOut, type CatalogFanOutOptions } from '../application/catalog/catalog-fan-out';
import { CatalogService } from '../application/catalog/catalog-service';
import { ApprovalDesk } from '../application/approvals/approval-desk';
import { DecideApproval } from '../application/approvals/decide-approval';
import { GetApprovalRules } from '../application/approvals/get-approval-rules';
import { ListApprovals } from '../application/approvals/list-approvals';
import { SetApprovalRules } from '../application/approvals/set-approval-rules';
import { CallEvents } from '../application/invocation/call-events';
import { RecordRefusedCall } from '../application/invocation/record-refused-call';
import { InvokeAgentTool } from '../application/invocation/invoke-agent-tool';
import { HostRequests } from '../application/host/host-requests';
import { HostSessions } from '../application/host/host-sessions';
import { BootPlugins } from '../application/plugins/boot-plugins';
import { ConfigurePlugin } from '../application/plugins/configure-plugin';
import { PluginSupervision } from '../application/plugins/plugin-supervision';
import { RunningPlugins } from '../application/plugins/running-plugins';
import { AgentctlLauncher } from '../application/ports/agentctl-launcher';
import { ApprovalRequests } from '../application/ports/approval-requests';
import { CatalogPublisher } from '../application/ports/catalog-publisher';
import { Clock } from '../application/ports/clock';
import { HostAccess } from '../application/ports/host-access';
import { HostPaths } from '../application/ports/host-paths';
import { SecretBox } from '../application/ports/secret-box';
import { IdGenerator } from '../application/ports/id-generator';
import { Logger } from '../application/ports/logger';
import { InstalledPackages } from '../application/ports/installed-packages';
import { PackageStaging } from '../application/ports/package-staging';
import { PluginLogs } from '../application/ports/plugin-logs';
import { PluginRuntime } from '../application/ports/plugin-runtime';
import { HostEntries } from '../application/ports/host-entries';
import { PluginRecords } from '../application/ports/plugin-records';
import type { PluginStore } from '../application/ports/plugin-store';
import { Replication } from '../application/ports/replication';
import { SessionStore } from '../application/ports/session-store';
import { LinkProof } from '../application/ports/link-proof';
import { Tracer } from '../application/ports/tracer';
import { AgentctlRequests } from '../application/sessions/agentctl-requests';
import { AuthenticateSession } from '../application/sessions/authenticate-session';
import { BackendUrl } from '../application/sessions/backend-url';
import { ListSessions } from '../application/sessions/list-sessions';
import { ObservedSessionStore } from '../application/sessions/observed-session-store';
import { PruneSessions } from '../application/sessions/prune-sessions';
import { ReconcileSessions } from '../application/sessions/reconcile-sessions';
import { SessionChanges } from '../application/sessions/session-changes';
import { SessionLiveness } from '../application/sessions/session-liveness';
import { RegisterAgentctl } from '../application/sessions/register-agentctl';
import { ReissueSessionToken } from '../application/sessions/reissue-session-token';
import { StartSession } from '../application/sessions/start-session';
import { StopAllSessions } from '../application/sessions/stop-all-sessions';
import { StopSession } from '../application/sessions/stop-session';
import type { Settings } from '../application/settings';
import { SchemaCompiler } from '../domain/schema-compiler';
import { bindClass, bindComponentLoggers, loggerOf } from './bind-class';
import { BACKEND_SETTINGS, PACKAGES, STORE } from './backend-tokens';
import { Disposals } from './disposals';
import { bindPluginCore, type ReplicaParts } from './plugin-core-bindings';
import { bindScopes } from './scope-bindings';

export type { ReplicaParts } from './plugin-core-bindings';
export { BACKEND_SETTINGS, PACKAGES, STORE } from './backend-tokens';

/**
 * A group of bindings: it binds its part of the backend into the container and registers the
 * disposal of what it binds, where it binds it (disposals run last registered first).
 */
export type BackendModule = (c: Container, disposals: Disposals) => void;

/**
 * The driven ports the core needs an adapter for: `serve` binds the real ones
 * (`backend-*-bindings.ts`), a test brings its own module; there is no default.
 */
export const BACKEND_ADAPTERS: ReadonlyArray<{ name: string; token: ServiceIdentifier }> = [
  { name: 'the store (PluginStore)', token: STORE },
  { name: 'PluginRuntime', token: PluginRuntime },
  { name: 'the packages (PackageStaging, InstalledPackages)', token: PACKAGES },
  { name: 'CatalogPublisher', token: CatalogPublisher },
  { name: 'AgentctlLauncher', token: AgentctlLauncher },
  { name: 'HostAccess', token: HostAccess },
  { name: 'HostPaths', token: HostPaths },
  { name: 'Clock', token: Clock },
  { name: 'IdGenerator', token: IdGenerator },
  { name: 'SchemaCompiler', token: SchemaCompiler },
  { name: 'SecretBox', token: SecretBox },
  { name: 'PluginLogs', token: PluginLogs },
  { name: 'Tracer', token: Tracer },
];

export interface BackendContainerInput {
  settings: Settings;
  logger: Logger;
  /** Where the disposals go, when the caller registered some before the container (serve's lock); a new one otherwise. */
  disposals?: Disposals;
  /** Binds an adapter for every port of BACKEND_ADAPTERS; closed after the core stopped. */
  adapters: BackendModule;
  /** What drives the backend from outside (serve's listener): bound after the core, so closed before it stops. */
  inbound?: BackendModule;
  fanOut?: Partial<CatalogFanOutOptions>;
  /** On a store several backends share (docs/operations.md §10): what this replica joins them with. */
  replicas?: ReplicaParts;
}

/** A container given no adapter for some port: the composition is wrong, so it says which. */
export class MissingAdapterError extends Error {
  constructor(missing: readonly string[]) {
    super(`the backend container has no adapter for ${missing.join(', ')}`);
    this.name = 'MissingAdapterError';
  }
}

/**
 * The backend process role: every port and use case as a singleton. `CatalogService.open()`
 * opens this start's catalog generation (it increments the stored boot counter once);
 * `StartBackend` starts the core, and `Disposals.disposeAll()` closes everything in the
 * reverse order of binding: the inbound side, the core (`StopBackend`), then the adapters.
 */
export function createBackendContainer(input: BackendContainerInput): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  const disposals = input.disposals ?? new Disposals(input.logger);
  c.bind(Disposals).toConstantValue(disposals);
  c.bind(BACKEND_SETTINGS).toConstantValue(input.settings);
  c.bind(Logger).toConstantValue(input.logger);
  input.adapters(c, disposals);
  const missing = BACKEND_ADAPTERS.filter(({ token }) => !c.isBound(token)).map(({ name }) => name);
  if (missing.length > 0) throw new MissingAdapterError(missing);
  bindComponentLoggers(c, ['sessions', 'host', 'invoke', 'catalog-fan-out', 'approvals']);
  bindStorePorts(c);
  bindHost(c);
  bindPluginCore(c, input.replicas);
  bindInvocation(c);
  bindSessions(c);
  bindScopes(c);
  c.bind(CatalogFanOut).toResolvedValue(
    (catalog: CatalogService, publisher: CatalogPublisher, logger: Logger) => new CatalogFanOut(catalog, publisher, logger, input.fanOut),
    [CatalogService, CatalogPublisher, loggerOf('catalog-fan-out')],
  );
  bindBackendLifecycle(c, disposals);
  input.inbound?.(c, disposals);
  return c;
}

/** One store adapter implements the three store ports, one package adapter the two package ports. */
function bindStorePorts(c: Container): void {
  c.bind(PackageStaging).toResolvedValue((packages: PackageStaging) => packages, [PACKAGES]);
  c.bind(InstalledPackages).toResolvedValue((packages: InstalledPackages) => packages, [PACKAGES]);
  bindClass(c, SessionChanges, []);
  c.bind(PluginRecords).toResolvedValue((store: PluginStore) => store, [STORE]);
  c.bind(HostEntries).toResolvedValue((store: PluginStore) => store, [STORE]);
  c.bind(ApprovalRequests).toResolvedValue((store: PluginStore) => store, [STORE]);
  // Every session save passes through here, so the console hears of each one.
  c.bind(SessionStore).toResolvedValue((store: PluginStore, changes: SessionChanges) => new ObservedSessionStore(store, changes), [STORE, SessionChanges]);
}

/** A tool call's use case and the events it tells. */
function bindInvocation(c: Container): void {
  c.bind(CallEvents).toResolvedValue(() => new CallEvents());
  const reads = [SessionStore, CatalogService, PluginRuntime, RunningPlugins, SchemaCompiler, IdGenerator, Clock] as const;
  bindClass(c, ApprovalDesk, [ApprovalRequests, CatalogService, Clock, BACKEND_SETTINGS, Replication, loggerOf('approvals'), SessionChanges]);
  bindClass(c, InvokeAgentTool, [...reads, BACKEND_SETTINGS, CallEvents, loggerOf('invoke'), Tracer, ApprovalDesk]);
  bindClass(c, DecideApproval, [ApprovalRequests, ApprovalDesk, Clock, loggerOf('approvals')]);
  bindClass(c, ListApprovals, [ApprovalRequests, Clock]);
  bindClass(c, GetApprovalRules, [PluginRecords]);
  bindClass(c, SetApprovalRules, [CatalogService, loggerOf('approvals')]);
  bindClass(c, RecordRefusedCall, [CatalogService, CallEvents, IdGenerator, Clock, loggerOf('invoke')]);
}

/** What plugin processes ask of the host; the HostAccess adapter that serves it is bound with the adapters. */
function bindHost(c: Container): void {
  bindClass(c, HostSessions, [IdGenerator]);
  bindClass(c, HostRequests, [HostSessions, HostEntries, PluginRecords, SecretBox, loggerOf('host')]);
}

function bindSessions(c: Container): void {
  bindClass(c, BackendUrl, []);
  c.bind(SessionLiveness).toResolvedValue(
    (store: SessionStore, clock: Clock, settings: Settings, logger: Logger) => new SessionLiveness(store, clock, settings.sessionGraceMs, logger),
    [SessionStore, Clock, BACKEND_SETTINGS, loggerOf('sessions')],
  );
  const log = loggerOf('sessions');
  bindClass(c, StartSession, [
    PluginRecords,
    SessionStore,
    AgentctlLauncher,
    CatalogService,
    BackendUrl,
    IdGenerator,
    Clock,
    SessionLiveness,
    log,
    LinkProof,
    Replication,
    SessionChanges,
  ]);
  bindClass(c, ReissueSessionToken, [SessionStore, BackendUrl, IdGenerator, Clock, log, LinkProof]);
  bindClass(c, StopSession, [SessionStore, AgentctlLauncher, Clock, Logger]);
  bindClass(c, StopAllSessions, [SessionStore, AgentctlLauncher, Clock, Logger]);
  bindClass(c, ScramLinkProof, []);
  c.bind(LinkProof).toService(ScramLinkProof);
  bindClass(c, AuthenticateSession, [SessionStore, LinkProof]);
  bindClass(c, RegisterAgentctl, [SessionStore, Clock, Logger, Replication, AgentctlLauncher, SessionLiveness]);
  bindClass(c, AgentctlRequests, [AuthenticateSession, RegisterAgentctl, CatalogFanOut, SessionLiveness, InvokeAgentTool, RecordRefusedCall]);
  bindClass(c, ListSessions, [SessionStore]);
  bindClass(c, ReconcileSessions, [SessionStore, AgentctlLauncher, SessionLiveness, Replication, log]);
  bindClass(c, PruneSessions, [SessionStore, Clock, BACKEND_SETTINGS, log, ApprovalRequests]);
}

/**
 * Starting and stopping the core (docs/operations.md §10). Its disposal stops what
 * `StartBackend` started, once a start was asked for: the adapters bound before it close
 * after it (the Host API after the plugins, the store last), the inbound side before it.
 */
function bindBackendLifecycle(c: Container, disposals: Disposals): void {
  let started = false;
  c.bind(StartBackend).toResolvedValue(
    (...parts: ConstructorParameters<typeof StartBackend>) => {
      started = true;
      return new StartBackend(...parts);
    },
    [BackendUrl, Replication, ReconcileSessions, PluginSupervision, CatalogFanOut, BootPlugins, OtherReplicas, PruneSessions, ApprovalDesk, ServerToolPins],
  );
  const stops = [StopAllSessions, PluginSupervision, PluginRuntime, ConfigurePlugin, PruneSessions, ServerToolPins] as const;
  bindClass(c, StopBackend, [OtherReplicas, CatalogFanOut, SessionLiveness, AgentctlLauncher, Replication, ...stops]);
  disposals.add('backend core', () => (started ? c.get(StopBackend).execute() : undefined));
}
