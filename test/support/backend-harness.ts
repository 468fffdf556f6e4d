import { InMemoryAgentctlLauncher } from '../../src/adapters/memory/in-memory-agentctl-launcher';
import { InMemoryCatalogPublisher } from '../../src/adapters/memory/in-memory-catalog-publisher';
import { InMemoryPackageSource } from '../../src/adapters/memory/in-memory-package-source';
import { InMemoryPluginRuntime, type InMemoryPluginBehaviour } from '../../src/adapters/memory/in-memory-plugin-runtime';
import { InMemoryPluginStore } from '../../src/adapters/memory/in-memory-plugin-store';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { CryptoIdGenerator } from '../../src/adapters/system/crypto-id-generator';
import { SystemClock } from '../../src/adapters/system/system-clock';
import { CatalogFanOut, type CatalogFanOutOptions } from '../../src/application/catalog/catalog-fan-out';
import { CatalogService } from '../../src/application/catalog/catalog-service';
import { InvokeAgentTool } from '../../src/application/invocation/invoke-agent-tool';
import { BootPlugins } from '../../src/application/plugins/boot-plugins';
import { DisablePlugin } from '../../src/application/plugins/disable-plugin';
import { EnablePlugin } from '../../src/application/plugins/enable-plugin';
import { InstallPlugin } from '../../src/application/plugins/install-plugin';
import type { PluginLifecycleDeps } from '../../src/application/plugins/plugin-lifecycle-deps';
import { PluginSupervision } from '../../src/application/plugins/plugin-supervision';
import { RunningPlugins } from '../../src/application/plugins/running-plugins';
import { UninstallPlugin } from '../../src/application/plugins/uninstall-plugin';
import { UpgradePlugin } from '../../src/application/plugins/upgrade-plugin';
import { DEFAULT_SETTINGS, type Settings } from '../../src/application/settings';
import { KeyedMutex } from '../../src/application/shared/keyed-mutex';
import type { CatalogSnapshot } from '../../src/domain/catalog';
import type { PluginManifest } from '../../src/domain/manifest';
import { CapturingLogger } from './capturing-logger';
import { echoBehaviour } from './fake-plugins';
import { manifestFixture } from './fixtures';

export interface HarnessOptions {
  settings?: Partial<Settings>;
  fanOut?: Partial<CatalogFanOutOptions>;
  /** Share a store with an earlier harness (a backend restart). */
  store?: InMemoryPluginStore;
}

/** The backend's application core wired over the in-memory adapters, for use-case tests. */
export function createBackendHarness(options: HarnessOptions = {}) {
  const settings: Settings = { ...DEFAULT_SETTINGS, restartBackoffMs: 20, ...options.settings };
  const store = options.store ?? new InMemoryPluginStore();
  const packages = new InMemoryPackageSource();
  const runtime = new InMemoryPluginRuntime({ restartBackoffMs: settings.restartBackoffMs });
  const publisher = new InMemoryCatalogPublisher();
  const launcher = new InMemoryAgentctlLauncher();
  const logger = new CapturingLogger();
  const clock = new SystemClock();
  const ids = new CryptoIdGenerator();
  const schemas = new AjvSchemaCompiler();
  const running = new RunningPlugins();
  const catalog = CatalogService.forNewGeneration(store, ids, settings, logger);
  const deps: PluginLifecycleDeps = { store, packages, runtime, running, catalog, locks: new KeyedMutex(), clock, settings, logger };
  const catalogChanges: CatalogSnapshot[] = [];
  catalog.onChange((snapshot) => catalogChanges.push(snapshot));
  const supervision = new PluginSupervision(runtime, running, store, catalog, clock, logger);
  supervision.execute();
  const fanOut = new CatalogFanOut(catalog, store, publisher, logger, { retryInitialMs: 10, retryMaxMs: 80, ...options.fanOut });

  /** Registers a package at a path and its plugin's behaviour; returns the path. */
  function addPackage(manifest: PluginManifest, behaviour: InMemoryPluginBehaviour = echoBehaviour()): string {
    const path = `/packages/${manifest.id}-${manifest.version}`;
    packages.register(path, manifest);
    runtime.register(packages.locate(manifest).executable, behaviour);
    return path;
  }

  return {
    settings,
    store,
    packages,
    runtime,
    publisher,
    launcher,
    logger,
    clock,
    ids,
    schemas,
    running,
    catalog,
    catalogChanges,
    supervision,
    fanOut,
    addPackage,
    /** A package for `id@version` with tools echo, slow and crash (and any `extra` names). */
    addEchoPackage(id: string, version = '1.0.0', toolNames = ['echo', 'slow', 'crash']): string {
      return addPackage(manifestFixture(id, version, toolNames));
    },
    install: new InstallPlugin(deps),
    upgrade: new UpgradePlugin(deps),
    enable: new EnablePlugin(deps),
    disable: new DisablePlugin(deps),
    uninstall: new UninstallPlugin(deps),
    boot: new BootPlugins(deps),
    invoke: new InvokeAgentTool(store, runtime, running, schemas, ids, clock, settings, logger),
    async shutdown(): Promise<void> {
      fanOut.dispose();
      supervision.dispose();
      await runtime.stopAll();
    },
  };
}

export type BackendHarness = ReturnType<typeof createBackendHarness>;
