import { Container } from 'inversify';
import { AjvSchemaCompiler } from '../adapters/ajv/ajv-schema-compiler';
import { InMemoryAgentctlLauncher } from '../adapters/memory/in-memory-agentctl-launcher';
import { InMemoryCatalogPublisher } from '../adapters/memory/in-memory-catalog-publisher';
import { InMemoryPackageSource } from '../adapters/memory/in-memory-package-source';
import { InMemoryPluginRuntime } from '../adapters/memory/in-memory-plugin-runtime';
import { InMemoryPluginStore } from '../adapters/memory/in-memory-plugin-store';
import { InMemoryPluginLogs } from '../adapters/memory/in-memory-plugin-logs';
import { randomBytes } from 'node:crypto';
import { InMemoryHostAccess } from '../adapters/memory/in-memory-host-access';
import { SilentTracer } from '../adapters/otel/silent-tracer';
import { AesGcmSecretBox } from '../adapters/system/aes-gcm-secret-box';
import { CryptoIdGenerator } from '../adapters/system/crypto-id-generator';
import { SystemClock } from '../adapters/system/system-clock';
import { ScramLinkProof } from '../adapters/websocket/scram-link-proof';
import { CatalogFanOut, type CatalogFanOutOptions } from '../application/catalog/catalog-fan-out';
import { CatalogService } from '../application/catalog/catalog-service';
import { CallEvents } from '../application/invocation/call-events';
import { InvokeAgentTool } from '../application/invocation/invoke-agent-tool';
import { HostRequests } from '../application/host/host-requests';
import { HostSessions } from '../application/host/host-sessions';
import { PluginSupervision } from '../application/plugins/plugin-supervision';
import { RunningPlugins } from '../application/plugins/running-plugins';
import { AgentctlLauncher } from '../application/ports/agentctl-launcher';
import { CatalogPublisher } from '../application/ports/catalog-publisher';
import { Clock } from '../application/ports/clock';
import { HostAccess } from '../application/ports/host-access';
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
import { SessionStore } from '../application/ports/session-store';
import { LinkProof } from '../application/ports/link-proof';
import { Tracer } from '../application/ports/tracer';
import { AgentctlRequests } from '../application/sessions/agentctl-requests';
import { AuthenticateSession } from '../application/sessions/authenticate-session';
import { BackendUrl } from '../application/sessions/backend-url';
import { ListSessions } from '../application/sessions/list-sessions';
import { ObservedSessionStore } from '../application/sessions/observed-session-store';
import { ReconcileSessions } from '../application/sessions/reconcile-sessions';
import { SessionChanges } from '../application/sessions/session-changes';
import { SessionLiveness } from '../application/sessions/session-liveness';
import { RegisterAgentctl } from '../application/sessions/register-agentctl';
import { ReissueSessionToken } from '../application/sessions/reissue-session-token';
import { StartSession } from '../application/sessions/start-session';
import { StopAllSessions } from '../application/sessions/stop-all-sessions';
import { StopSession } from '../application/sessions/stop-session';
import type { Settings } from '../application/settings';
import { FollowReplicas } from '../application/replicas/follow-replicas';
import { SchemaCompiler } from '../domain/schema-compiler';
import { bindPluginCore, type ReplicaParts } from './plugin-core-bindings';
import { TRACE_FLUSH_MS } from './tracing';
import { ReconcileCopies } from '../application/replicas/reconcile-copies';
import { BootPlugins } from '../application/plugins/boot-plugins';
import { ConfigurePlugin } from '../application/plugins/configure-plugin';
import { Replication } from '../application/ports/replication';

export type { ReplicaParts } from './plugin-core-bindings';

/** The driven ports of the backend role; each one can be replaced by a real adapter. */
export interface BackendAdapters {
  store: PluginStore;
  runtime: PluginRuntime;
  /** The package adapter behind PackageStaging and InstalledPackages. */
  packages: PackageStaging & InstalledPackages;
  publisher: CatalogPublisher;
  launcher: AgentctlLauncher;
  clock: Clock;
  ids: IdGenerator;
  schemas: SchemaCompiler;
  /** Seals configurations and plugin secrets; by default with a key made for this process only. */
  secrets: SecretBox;
  /** Each plugin's recent log records; `serve` keeps them in files too, and tees its logger into them. */
  pluginLogs: PluginLogs;
  /** Where the spans of tool calls go; by default nowhere (docs/operations.md §8). */
  tracer: Tracer;
}

/** Factories for real adapters (SqlitePluginStore, GrpcPluginRuntime, FsPackageSource…), called once. */
export type BackendAdapterOverrides = { [K in keyof BackendAdapters]?: () => BackendAdapters[K] };

export interface BackendContainerInput {
  settings: Settings;
  logger: Logger;
  overrides?: BackendAdapterOverrides;
  fanOut?: Partial<CatalogFanOutOptions>;
  /** The Host API's server (the gRPC one in `serve`); by default grants with no listener. */
  hostAccess?: (sessions: HostSessions, requests: HostRequests) => HostAccess;
  /** On a store several backends share (docs/operations.md §10): what this replica joins them with. */
  replicas?: ReplicaParts;
}

export const REPLICA_PARTS = Symbol('ReplicaParts');

export const BACKEND_SETTINGS = Symbol('Settings');
/** The store adapter behind PluginRecords, SessionStore and HostEntries. */
export const STORE = Symbol('PluginStore');
/** The package adapter behind PackageStaging and InstalledPackages. */
export const PACKAGES = Symbol('Packages');

/** Defaults: in-memory adapters, so the core runs (and is tested) with no disk or process. */
function defaultAdapters(settings: Settings): { [K in keyof BackendAdapters]: () => BackendAdapters[K] } {
  return {
    store: () => new InMemoryPluginStore(),
    runtime: () => new InMemoryPluginRuntime({ restartBackoffMs: settings.restartBackoffMs, healthIntervalMs: settings.healthIntervalMs }),
    packages: () => new InMemoryPackageSource(),
    publisher: () => new InMemoryCatalogPublisher(),
    launcher: () => new InMemoryAgentctlLauncher(),
    clock: () => new SystemClock(),
    ids: () => new CryptoIdGenerator(),
    schemas: () => new AjvSchemaCompiler(),
    secrets: () => new AesGcmSecretBox(randomBytes(32)),
    pluginLogs: () => new InMemoryPluginLogs(),
    tracer: () => new SilentTracer(),
  };
}

/**
 * The backend process role: every port and use case as a singleton. Resolving CatalogService
 * opens this start's catalog generation (it increments the stored boot counter once).
 */
export function createBackendContainer(input: BackendContainerInput): Container {
  const { settings } = input;
  const adapters = { ...defaultAdapters(settings), ...input.overrides };
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind<Settings>(BACKEND_SETTINGS).toConstantValue(settings);
  c.bind(Logger).toConstantValue(input.logger);
  c.bind(SessionChanges).toResolvedValue(() => new SessionChanges());
  // One store adapter implements the three store ports.
  c.bind<PluginStore>(STORE).toResolvedValue(adapters.store);
  c.bind(PluginRecords).toResolvedValue((store: PluginStore) => store, [STORE]);
  c.bind(HostEntries).toResolvedValue((store: PluginStore) => store, [STORE]);
  // Every session save passes through here, so the console hears of each one.
  c.bind(SessionStore).toResolvedValue((store: PluginStore, changes: SessionChanges) => new ObservedSessionStore(store, changes), [STORE, SessionChanges]);
  c.bind(PluginRuntime).toResolvedValue(adapters.runtime);
  // One package adapter implements both package ports.
  c.bind<PackageStaging & InstalledPackages>(PACKAGES).toResolvedValue(adapters.packages);
  c.bind(PackageStaging).toResolvedValue((packages: PackageStaging & InstalledPackages) => packages, [PACKAGES]);
  c.bind(InstalledPackages).toResolvedValue((packages: PackageStaging & InstalledPackages) => packages, [PACKAGES]);
  c.bind(CatalogPublisher).toResolvedValue(adapters.publisher);
  c.bind(AgentctlLauncher).toResolvedValue(adapters.launcher);
  c.bind(Clock).toResolvedValue(adapters.clock);
  c.bind(IdGenerator).toResolvedValue(adapters.ids);
  c.bind(SchemaCompiler).toResolvedValue(adapters.schemas);
  c.bind(SecretBox).toResolvedValue(adapters.secrets);
  c.bind(PluginLogs).toResolvedValue(adapters.pluginLogs);
  c.bind(Tracer).toResolvedValue(adapters.tracer);
  bindHost(c, input.hostAccess ?? ((sessions) => new InMemoryHostAccess(sessions)));
  c.bind<ReplicaParts | null>(REPLICA_PARTS).toConstantValue(input.replicas ?? null);
  bindPluginCore(c, settings, input.replicas);
  bindInvocation(c, settings);
  bindSessions(c, settings);
  c.bind(CatalogFanOut).toResolvedValue(
    (catalog: CatalogService, publisher: CatalogPublisher, logger: Logger) =>
      new CatalogFanOut(catalog, publisher, logger.child({ component: 'catalog-fan-out' }), input.fanOut),
    [CatalogService, CatalogPublisher, Logger],
  );
  return c;
}

/** A tool call's use case and the events it tells. */
function bindInvocation(c: Container, settings: Settings): void {
  c.bind(CallEvents).toResolvedValue(() => new CallEvents());
  c.bind(InvokeAgentTool).toResolvedValue(
    (
      store: SessionStore,
      catalog: CatalogService,
      runtime: PluginRuntime,
      running: RunningPlugins,
      schemas: SchemaCompiler,
      ids: IdGenerator,
      clock: Clock,
      calls: CallEvents,
      logger: Logger,
      tracer: Tracer,
    ) => new InvokeAgentTool(store, catalog, runtime, running, schemas, ids, clock, settings, calls, logger.child({ component: 'invoke' }), tracer),
    [SessionStore, CatalogService, PluginRuntime, RunningPlugins, SchemaCompiler, IdGenerator, Clock, CallEvents, Logger, Tracer],
  );
}

function bindHost(c: Container, hostAccess: (sessions: HostSessions, requests: HostRequests) => HostAccess): void {
  c.bind(HostSessions).toResolvedValue((ids: IdGenerator) => new HostSessions(ids), [IdGenerator]);
  c.bind(HostRequests).toResolvedValue(
    (sessions: HostSessions, store: HostEntries, secrets: SecretBox, logger: Logger) =>
      new HostRequests(sessions, store, secrets, logger.child({ component: 'host' })),
    [HostSessions, HostEntries, SecretBox, Logger],
  );
  c.bind(HostAccess).toResolvedValue(hostAccess, [HostSessions, HostRequests]);
}

function bindSessions(c: Container, settings: Settings): void {
  c.bind(BackendUrl).toResolvedValue(() => new BackendUrl());
  c.bind(SessionLiveness).toResolvedValue(
    (store: SessionStore, clock: Clock, logger: Logger) => new SessionLiveness(store, clock, settings.sessionGraceMs, logger.child({ component: 'sessions' })),
    [SessionStore, Clock, Logger],
  );
  c.bind(StartSession).toResolvedValue(
    (
      store: SessionStore,
      launcher: AgentctlLauncher,
      catalog: CatalogService,
      url: BackendUrl,
      ids: IdGenerator,
      clock: Clock,
      liveness: SessionLiveness,
      logger: Logger,
      proof: LinkProof,
      replication: Replication,
    ) => new StartSession(store, launcher, catalog, url, ids, clock, liveness, logger.child({ component: 'sessions' }), proof, replication),
    [SessionStore, AgentctlLauncher, CatalogService, BackendUrl, IdGenerator, Clock, SessionLiveness, Logger, LinkProof, Replication],
  );
  c.bind(ReissueSessionToken).toResolvedValue(
    (store: SessionStore, url: BackendUrl, ids: IdGenerator, clock: Clock, logger: Logger, proof: LinkProof) =>
      new ReissueSessionToken(store, url, ids, clock, logger.child({ component: 'sessions' }), proof),
    [SessionStore, BackendUrl, IdGenerator, Clock, Logger, LinkProof],
  );
  c.bind(StopSession).toResolvedValue(
    (store: SessionStore, launcher: AgentctlLauncher, clock: Clock, logger: Logger) => new StopSession(store, launcher, clock, logger),
    [SessionStore, AgentctlLauncher, Clock, Logger],
  );
  c.bind(StopAllSessions).toResolvedValue(
    (store: SessionStore, launcher: AgentctlLauncher, clock: Clock, logger: Logger) => new StopAllSessions(store, launcher, clock, logger),
    [SessionStore, AgentctlLauncher, Clock, Logger],
  );
  c.bind(LinkProof).toResolvedValue(() => new ScramLinkProof());
  c.bind(AuthenticateSession).toResolvedValue((store: SessionStore, proof: LinkProof) => new AuthenticateSession(store, proof), [SessionStore, LinkProof]);
  c.bind(RegisterAgentctl).toResolvedValue(
    (store: SessionStore, clock: Clock, logger: Logger, replication: Replication, launcher: AgentctlLauncher, liveness: SessionLiveness) =>
      new RegisterAgentctl(store, clock, logger, replication, launcher, liveness),
    [SessionStore, Clock, Logger, Replication, AgentctlLauncher, SessionLiveness],
  );
  c.bind(AgentctlRequests).toResolvedValue(
    (
      authenticate: AuthenticateSession,
      register: RegisterAgentctl,
      catalog: CatalogService,
      fanOut: CatalogFanOut,
      liveness: SessionLiveness,
      invoke: InvokeAgentTool,
    ) => new AgentctlRequests(authenticate, register, catalog, fanOut, liveness, invoke),
    [AuthenticateSession, RegisterAgentctl, CatalogService, CatalogFanOut, SessionLiveness, InvokeAgentTool],
  );
  c.bind(ListSessions).toResolvedValue((store: SessionStore) => new ListSessions(store), [SessionStore]);
  c.bind(ReconcileSessions).toResolvedValue(
    (store: SessionStore, launcher: AgentctlLauncher, liveness: SessionLiveness, replication: Replication, logger: Logger) =>
      new ReconcileSessions(store, launcher, liveness, replication, logger.child({ component: 'sessions' })),
    [SessionStore, AgentctlLauncher, SessionLiveness, Replication, Logger],
  );
}

/** Opens this start's catalog generation; before anything (a listener included) may read it. */
export async function openBackendCore(c: Container): Promise<void> {
  await c.get(CatalogService).open();
}

/**
 * Starts the backend core once its listener is up: follow agentctls an earlier backend left
 * running, supervision and catalog changes, then start the stored plugins (resolves once each
 * is active or in error). A replica joining live ones (docs/operations.md §10) only starts its own
 * copies, then follows the others' changes.
 */
export async function startBackendCore(c: Container, backendUrl: string): Promise<void> {
  c.get(BackendUrl).set(backendUrl);
  // A replica joining live ones leaves their sessions and records to them: it only starts its own copies.
  const joined = c.get(Replication).joinedOthers();
  if (!joined) await c.get(ReconcileSessions).execute();
  c.get(PluginSupervision).execute();
  c.get(CatalogFanOut).execute();
  if (joined) await c.get(ReconcileCopies).execute();
  else await c.get(BootPlugins).execute();
  if (c.get<ReplicaParts | null>(REPLICA_PARTS)) await c.get(FollowReplicas).execute();
}

/**
 * Shutdown, in the reverse order of the start: stop following the other replicas and pushing
 * catalog changes; stop following agentctl exits, then stop the agentctls this backend
 * launched (unless another replica is live to take them over); stop following supervision,
 * then the plugins, then deregister the replica; then the Host API the plugins called; the
 * store last, once nothing can call it any more.
 */
export async function stopBackendCore(c: Container): Promise<void> {
  const replicas = c.get<ReplicaParts | null>(REPLICA_PARTS);
  // No copy is started for another replica's change once shutdown began, and this replica
  // deregisters first: replicas stopping together each see the others that stay, never one
  // that is itself leaving, so the last to go stops every agentctl.
  if (replicas) await c.get(FollowReplicas).leave();
  c.get(CatalogFanOut).dispose();
  await c.get(SessionLiveness).dispose();
  c.get(AgentctlLauncher).dispose();
  // While another replica is live, this one's agentctls fail over to it instead (docs/operations.md §10).
  if (!(await c.get(Replication).othersLive())) await c.get(StopAllSessions).execute();
  await c.get(PluginSupervision).dispose();
  await c.get(PluginRuntime).stopAll();
  await c.get(ConfigurePlugin).settled();
  // The Host API after the plugins (they may call it until they exit), the store last.
  await c.get(HostAccess).close();
  await c.get(PluginRecords).close();
  c.get(PluginLogs).close();
  // Every call has ended by now: its spans are the last thing to go out.
  await c.get(Tracer).shutdown(TRACE_FLUSH_MS);
}
