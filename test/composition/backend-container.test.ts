import { sessionRecordFixture } from '../support/fixtures';
import { InMemoryPluginStore } from '../../src/adapters/memory/in-memory-plugin-store';
import { CatalogFanOut } from '../../src/application/catalog/catalog-fan-out';
import { CatalogService } from '../../src/application/catalog/catalog-service';
import { InvokeAgentTool } from '../../src/application/invocation/invoke-agent-tool';
import { BootPlugins } from '../../src/application/plugins/boot-plugins';
import { DisablePlugin } from '../../src/application/plugins/disable-plugin';
import { EnablePlugin } from '../../src/application/plugins/enable-plugin';
import { GetPlugin } from '../../src/application/plugins/get-plugin';
import { InstallPlugin } from '../../src/application/plugins/install-plugin';
import { ListPlugins } from '../../src/application/plugins/list-plugins';
import { PluginSupervision } from '../../src/application/plugins/plugin-supervision';
import { RunningPlugins } from '../../src/application/plugins/running-plugins';
import { UninstallPlugin } from '../../src/application/plugins/uninstall-plugin';
import { UpgradePlugin } from '../../src/application/plugins/upgrade-plugin';
import { AgentctlLauncher } from '../../src/application/ports/agentctl-launcher';
import { CatalogPublisher } from '../../src/application/ports/catalog-publisher';
import { Clock } from '../../src/application/ports/clock';
import { IdGenerator } from '../../src/application/ports/id-generator';
import { Logger } from '../../src/application/ports/logger';
import { InstalledPackages } from '../../src/application/ports/installed-packages';
import { PackageStaging } from '../../src/application/ports/package-staging';
import { PluginRuntime } from '../../src/application/ports/plugin-runtime';
import { SoleBackend } from '../../src/application/catalog/sole-backend';
import { GrantedReach } from '../../src/application/plugins/granted-reach';
import { LaunchSpecs } from '../../src/application/plugins/launch-spec';
import { NoPackageSharing } from '../../src/application/plugins/no-package-sharing';
import { StoredConfigurations } from '../../src/application/plugins/stored-configuration';
import { HostEntries } from '../../src/application/ports/host-entries';
import { PackageSharing } from '../../src/application/ports/package-sharing';
import { Replication } from '../../src/application/ports/replication';
import { PluginRecords } from '../../src/application/ports/plugin-records';
import { SessionStore } from '../../src/application/ports/session-store';
import { AgentctlRequests } from '../../src/application/sessions/agentctl-requests';
import { AuthenticateSession } from '../../src/application/sessions/authenticate-session';
import { ReconcileSessions } from '../../src/application/sessions/reconcile-sessions';
import { SessionLiveness } from '../../src/application/sessions/session-liveness';
import { CallEvents } from '../../src/application/invocation/call-events';
import { BackendUrl } from '../../src/application/sessions/backend-url';
import { ListSessions } from '../../src/application/sessions/list-sessions';
import { RegisterAgentctl } from '../../src/application/sessions/register-agentctl';
import { StartSession } from '../../src/application/sessions/start-session';
import { StopAllSessions } from '../../src/application/sessions/stop-all-sessions';
import { StopSession } from '../../src/application/sessions/stop-session';
import { DEFAULT_SETTINGS } from '../../src/application/settings';
import { KeyedMutex } from '../../src/application/shared/keyed-mutex';
import { BACKEND_SETTINGS, createBackendContainer, MissingAdapterError, STORE, type BackendModule } from '../../src/composition/backend-container';
import { Disposals } from '../../src/composition/disposals';
import { NoOtherReplicas, OtherReplicas } from '../../src/application/backend/other-replicas';
import { StartBackend } from '../../src/application/backend/start-backend';
import { StopBackend } from '../../src/application/backend/stop-backend';
import { HostAccess } from '../../src/application/ports/host-access';
import { Tracer } from '../../src/application/ports/tracer';
import { SilentTracer } from '../../src/adapters/otel/silent-tracer';
import { InMemoryPluginRuntime } from '../../src/adapters/memory/in-memory-plugin-runtime';
import { InMemoryAgentctlLauncher } from '../../src/adapters/memory/in-memory-agentctl-launcher';
import { inMemoryBackend } from '../support/in-memory-backend';
import { SchemaCompiler } from '../../src/domain/schema-compiler';
import { CapturingLogger } from '../support/capturing-logger';

const SERVICES = [
  BACKEND_SETTINGS,
  Logger,
  PluginRecords,
  SessionStore,
  HostEntries,
  PluginRuntime,
  PackageStaging,
  InstalledPackages,
  CatalogPublisher,
  AgentctlLauncher,
  Clock,
  IdGenerator,
  SchemaCompiler,
  RunningPlugins,
  KeyedMutex,
  CatalogService,
  InstallPlugin,
  UpgradePlugin,
  EnablePlugin,
  DisablePlugin,
  UninstallPlugin,
  BootPlugins,
  ListPlugins,
  GetPlugin,
  PluginSupervision,
  InvokeAgentTool,
  BackendUrl,
  StartSession,
  StopSession,
  StopAllSessions,
  AuthenticateSession,
  RegisterAgentctl,
  ListSessions,
  CatalogFanOut,
  AgentctlRequests,
  CallEvents,
  SessionLiveness,
  ReconcileSessions,
  Replication,
  PackageSharing,
  LaunchSpecs,
  GrantedReach,
  StoredConfigurations,
  OtherReplicas,
  StartBackend,
  StopBackend,
  Disposals,
];

const logger = () => new CapturingLogger();
const backend = (adapters: BackendModule = inMemoryBackend(DEFAULT_SETTINGS)) =>
  createBackendContainer({ settings: DEFAULT_SETTINGS, logger: logger(), adapters });

describe('createBackendContainer', () => {
  it('resolves every binding, each a singleton', () => {
    const c = backend();
    for (const id of SERVICES) {
      const first = c.get<unknown>(id);
      expect(first).toBeDefined();
      expect(c.get<unknown>(id)).toBe(first);
    }
  });

  it('binds both package ports to the one package adapter', () => {
    const c = backend();
    expect(c.get<unknown>(PackageStaging)).toBe(c.get<unknown>(InstalledPackages));
  });

  it('binds the null objects of replica mode for a backend alone: no copies in any answer', async () => {
    const c = backend();
    expect(c.get(Replication)).toBeInstanceOf(SoleBackend);
    expect(c.get(PackageSharing)).toBeInstanceOf(NoPackageSharing);
    expect(c.get(OtherReplicas)).toBeInstanceOf(NoOtherReplicas);
    await c.get(CatalogService).open();
    expect(c.get(Replication).joinedOthers()).toBe(false);
    expect(await c.get(Replication).othersLive()).toBe(false);
  });

  it('opens one catalog generation per container start from the stored boot counter', async () => {
    const store = new InMemoryPluginStore();
    const first = backend(inMemoryBackend(DEFAULT_SETTINGS, { store }));
    const second = backend(inMemoryBackend(DEFAULT_SETTINGS, { store }));
    await first.get(CatalogService).open();
    await second.get(CatalogService).open();
    expect(first.get(CatalogService).current().generation).toMatch(/^000000000001-/);
    expect(first.get(CatalogService).current().generation).toMatch(/^000000000001-/);
    expect(second.get(CatalogService).current().generation).toMatch(/^000000000002-/);
  });

  it('uses the adapters its module binds', async () => {
    const store = new InMemoryPluginStore();
    const c = backend(inMemoryBackend(DEFAULT_SETTINGS, { store }));
    // The container observes session writes for the console, so the store it serves wraps the one given.
    await c.get(SessionStore).saveSession(sessionRecordFixture({ session_id: 'given' }));
    expect((await store.getSession('given'))?.session_id).toBe('given');
    expect(await c.get(ListPlugins).execute()).toEqual([]);
    // The records and the Host entries are the adapter itself: only the session port is wrapped.
    expect(c.get(PluginRecords)).toBe(store);
    expect(c.get(HostEntries)).toBe(store);
  });

  it('has no default adapter: a module that binds some ports is refused, naming each one missing', () => {
    const some: BackendModule = (c) => {
      c.bind(STORE).toConstantValue(new InMemoryPluginStore());
      c.bind(Tracer).toConstantValue(new SilentTracer());
    };
    expect(() => backend(some)).toThrow(MissingAdapterError);
    expect(() => backend(some)).toThrow(
      'the backend container has no adapter for PluginRuntime, the packages (PackageStaging, InstalledPackages), CatalogPublisher, AgentctlLauncher, HostAccess, HostPaths, Clock, IdGenerator, SchemaCompiler, SecretBox, PluginLogs',
    );
  });

  it('starts the core with StartBackend, and disposeAll stops it, then the Host API, the store and the spans, once', async () => {
    const store = new InMemoryPluginStore();
    const runtime = new InMemoryPluginRuntime({ restartBackoffMs: 20, healthIntervalMs: 10 });
    const tracer = new SilentTracer();
    const c = backend(inMemoryBackend(DEFAULT_SETTINGS, { store, runtime, tracer }));
    await c.get(CatalogService).open();
    await c.get(StartBackend).execute('http://127.0.0.1:7800');
    expect(c.get(BackendUrl).get()).toBe('http://127.0.0.1:7800');
    const order: string[] = [];
    const host = c.get(HostAccess);
    for (const [name, target, method] of [
      ['plugins', runtime, 'stopAll'],
      ['host', host, 'close'],
      ['store', store, 'close'],
      ['traces', tracer, 'shutdown'],
    ] as const) {
      const original = (target[method as keyof typeof target] as () => Promise<void>).bind(target);
      jest.spyOn(target, method as never).mockImplementation((() => (order.push(name), original())) as never);
    }
    await Promise.all([c.get(Disposals).disposeAll(), c.get(Disposals).disposeAll()]);
    expect(order).toEqual(['plugins', 'host', 'store', 'traces']);
    await expect(c.get(PluginRecords).listPlugins()).rejects.toThrow();
  });

  it('closes the adapters but leaves the sessions alone when the core never started', async () => {
    const launcher = new InMemoryAgentctlLauncher();
    const c = backend(inMemoryBackend(DEFAULT_SETTINGS, { launcher }));
    await c.get(CatalogService).open();
    const dispose = jest.spyOn(launcher, 'dispose');
    const stopAll = jest.spyOn(c.get(StopAllSessions), 'execute');
    await c.get(Disposals).disposeAll();
    expect(dispose).not.toHaveBeenCalled();
    expect(stopAll).not.toHaveBeenCalled();
    await expect(c.get(PluginRecords).listPlugins()).rejects.toThrow();
  });
});
