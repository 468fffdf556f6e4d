import { AcceptPluginTools } from '../../src/application/plugins/accept-plugin-tools';
import { ServerToolPins } from '../../src/application/plugins/server-tool-pins';
import { InMemoryAgentctlLauncher } from '../../src/adapters/memory/in-memory-agentctl-launcher';
import { InMemoryCatalogPublisher } from '../../src/adapters/memory/in-memory-catalog-publisher';
import { InMemoryHostPaths } from '../../src/adapters/memory/in-memory-host-paths';
import { InMemoryPackageSource } from '../../src/adapters/memory/in-memory-package-source';
import { FsHostPaths } from '../../src/adapters/system/fs-host-paths';
import { InMemoryPluginRuntime, type InMemoryPluginBehaviour } from '../../src/adapters/memory/in-memory-plugin-runtime';
import { InMemoryPluginStore } from '../../src/adapters/memory/in-memory-plugin-store';
import { CatalogFanOut, type CatalogFanOutOptions } from '../../src/application/catalog/catalog-fan-out';
import { CatalogService } from '../../src/application/catalog/catalog-service';
import { CallEvents } from '../../src/application/invocation/call-events';
import { InvokeAgentTool } from '../../src/application/invocation/invoke-agent-tool';
import type { InMemoryHostAccess } from '../../src/adapters/memory/in-memory-host-access';
import { HostRequests } from '../../src/application/host/host-requests';
import { HostSessions } from '../../src/application/host/host-sessions';
import { BootPlugins } from '../../src/application/plugins/boot-plugins';
import { ConfigurePlugin } from '../../src/application/plugins/configure-plugin';
import { GetPluginConfig } from '../../src/application/plugins/get-plugin-config';
import { DisablePlugin } from '../../src/application/plugins/disable-plugin';
import { EnablePlugin } from '../../src/application/plugins/enable-plugin';
import { InstallPlugin } from '../../src/application/plugins/install-plugin';
import { PluginSupervision } from '../../src/application/plugins/plugin-supervision';
import { RunningPlugins } from '../../src/application/plugins/running-plugins';
import { UninstallPlugin } from '../../src/application/plugins/uninstall-plugin';
import { UpgradePlugin } from '../../src/application/plugins/upgrade-plugin';
import { Clock } from '../../src/application/ports/clock';
import { HostAccess } from '../../src/application/ports/host-access';
import { SecretBox } from '../../src/application/ports/secret-box';
import type { Tracer } from '../../src/application/ports/tracer';
import { IdGenerator } from '../../src/application/ports/id-generator';
import type { PluginStore } from '../../src/application/ports/plugin-store';
import { DEFAULT_SETTINGS, type Settings } from '../../src/application/settings';
import { createBackendContainer } from '../../src/composition/backend-container';
import type { CatalogSnapshot } from '../../src/domain/catalog';
import type { PluginManifest } from '../../src/domain/manifest';
import { SchemaCompiler } from '../../src/domain/schema-compiler';
import { CapturingLogger } from './capturing-logger';
import { echoBehaviour } from './fake-plugins';
import { manifestFixture, sessionRecordFixture } from './fixtures';
import { inMemoryBackend } from './in-memory-backend';
import { LIVE_SESSION } from './invocation';

export interface HarnessOptions {
  settings?: Partial<Settings>;
  fanOut?: Partial<CatalogFanOutOptions>;
  /** Share a store with an earlier harness (a backend restart), or with another backend (a shared PostgreSQL store). */
  store?: PluginStore;
  /** Store LIVE_SESSION as a live session, so invoke() has a caller (default true). */
  liveSession?: boolean;
  /** Seal with this box (a backend restart on the same store must open what the first sealed). */
  secrets?: SecretBox;
  /** Where the spans go (the silent tracer by default). */
  tracer?: Tracer;
  /** Host folders granted paths may name that this machine need not have (e.g. `/srv`): they exist for the backend. */
  hostFolders?: string[];
}

/**
 * The backend's application core as the composition root wires it (createBackendContainer),
 * over the in-memory adapters (`inMemoryBackend`), for use-case tests. Supervision follows the runtime from the
 * start; the fan-out starts only when a test runs `fanOut.execute()`.
 */
export async function createBackendHarness(options: HarnessOptions = {}) {
  const settings: Settings = { ...DEFAULT_SETTINGS, restartBackoffMs: 20, healthIntervalMs: 10, ...options.settings };
  const store: PluginStore = options.store ?? new InMemoryPluginStore();
  const packages = new InMemoryPackageSource();
  const runtime = new InMemoryPluginRuntime({ restartBackoffMs: settings.restartBackoffMs, healthIntervalMs: settings.healthIntervalMs });
  const publisher = new InMemoryCatalogPublisher();
  const launcher = new InMemoryAgentctlLauncher();
  const logger = new CapturingLogger();
  const container = createBackendContainer({
    settings,
    logger,
    adapters: inMemoryBackend(settings, {
      store,
      packages,
      runtime,
      publisher,
      launcher,
      secrets: options.secrets,
      tracer: options.tracer,
      hostPaths: new InMemoryHostPaths(new FsHostPaths('/memory', process.env), options.hostFolders),
    }),
    fanOut: { retryInitialMs: 10, retryMaxMs: 80, ...options.fanOut },
  });
  const catalog = container.get(CatalogService);
  await catalog.open();
  const catalogChanges: CatalogSnapshot[] = [];
  catalog.onChange((snapshot) => catalogChanges.push(snapshot));
  const supervision = container.get(PluginSupervision);
  supervision.execute();
  const pins = container.get(ServerToolPins);
  pins.execute();
  const fanOut = container.get(CatalogFanOut);
  if (options.liveSession !== false) await store.saveSession(sessionRecordFixture({ ...LIVE_SESSION, status: 'live' }));

  /** Registers a package at a path and its plugin's behaviour; returns the path. */
  function addPackage(manifest: PluginManifest, behaviour: InMemoryPluginBehaviour = echoBehaviour()): string {
    const path = `/packages/${manifest.id}-${manifest.version}`;
    packages.register(path, manifest);
    runtime.register(packages.locate(manifest).executable, behaviour);
    return path;
  }

  return {
    container,
    settings,
    store,
    packages,
    runtime,
    publisher,
    launcher,
    logger,
    clock: container.get(Clock),
    ids: container.get(IdGenerator),
    schemas: container.get(SchemaCompiler),
    running: container.get(RunningPlugins),
    catalog,
    catalogChanges,
    supervision,
    pins,
    acceptTools: container.get(AcceptPluginTools),
    fanOut,
    calls: container.get(CallEvents),
    addPackage,
    /** Puts the version of the package at `path` on "disk" with no record, as for a record saved straight into the store. */
    async unpack(path: string): Promise<void> {
      await packages.commit(await packages.stage(path));
    },
    /** A package for `id@version` with tools echo, slow and crash (and any `extra` names). */
    addEchoPackage(id: string, version = '1.0.0', toolNames = ['echo', 'slow', 'crash']): string {
      return addPackage(manifestFixture(id, version, toolNames));
    },
    install: container.get(InstallPlugin),
    upgrade: container.get(UpgradePlugin),
    enable: container.get(EnablePlugin),
    disable: container.get(DisablePlugin),
    uninstall: container.get(UninstallPlugin),
    boot: container.get(BootPlugins),
    invoke: container.get(InvokeAgentTool),
    configure: container.get(ConfigurePlugin),
    getConfig: container.get(GetPluginConfig),
    secrets: container.get(SecretBox),
    /** What plugin processes ask of the host, by their token. */
    host: container.get(HostRequests),
    hostSessions: container.get(HostSessions),
    /** The grants open now, one per running process, with the profile each acts with. */
    hostAccess: container.get(HostAccess) as InMemoryHostAccess,
    async shutdown(): Promise<void> {
      fanOut.dispose();
      await supervision.dispose();
      await runtime.stopAll();
      await pins.dispose();
      await container.get(ConfigurePlugin).settled();
    },
  };
}

export type BackendHarness = Awaited<ReturnType<typeof createBackendHarness>>;
