import { randomBytes } from 'node:crypto';
import type { Container } from 'inversify';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { InMemoryAgentctlLauncher } from '../../src/adapters/memory/in-memory-agentctl-launcher';
import { InMemoryCatalogPublisher } from '../../src/adapters/memory/in-memory-catalog-publisher';
import { InMemoryHostAccess } from '../../src/adapters/memory/in-memory-host-access';
import { InMemoryPackageSource } from '../../src/adapters/memory/in-memory-package-source';
import { InMemoryPluginLogs } from '../../src/adapters/memory/in-memory-plugin-logs';
import { InMemoryPluginRuntime } from '../../src/adapters/memory/in-memory-plugin-runtime';
import { InMemoryPluginStore } from '../../src/adapters/memory/in-memory-plugin-store';
import { SilentTracer } from '../../src/adapters/otel/silent-tracer';
import { AesGcmSecretBox } from '../../src/adapters/system/aes-gcm-secret-box';
import { CryptoIdGenerator } from '../../src/adapters/system/crypto-id-generator';
import { FsHostPaths } from '../../src/adapters/system/fs-host-paths';
import { InMemoryHostPaths } from '../../src/adapters/memory/in-memory-host-paths';
import { SystemClock } from '../../src/adapters/system/system-clock';
import { HostSessions } from '../../src/application/host/host-sessions';
import { AgentctlLauncher } from '../../src/application/ports/agentctl-launcher';
import { CatalogPublisher } from '../../src/application/ports/catalog-publisher';
import { Clock } from '../../src/application/ports/clock';
import { HostAccess } from '../../src/application/ports/host-access';
import { HostPaths } from '../../src/application/ports/host-paths';
import { IdGenerator } from '../../src/application/ports/id-generator';
import type { InstalledPackages } from '../../src/application/ports/installed-packages';
import type { PackageStaging } from '../../src/application/ports/package-staging';
import { PluginLogs } from '../../src/application/ports/plugin-logs';
import { PluginRuntime } from '../../src/application/ports/plugin-runtime';
import type { PluginStore } from '../../src/application/ports/plugin-store';
import { SecretBox } from '../../src/application/ports/secret-box';
import { Tracer } from '../../src/application/ports/tracer';
import type { Settings } from '../../src/application/settings';
import { PACKAGES, STORE, type BackendModule } from '../../src/composition/backend-container';
import type { Disposals } from '../../src/composition/disposals';
import { SchemaCompiler } from '../../src/domain/schema-compiler';

/** The adapters a test's backend runs on; each one a test does not give is an in-memory one. */
export interface InMemoryAdapters {
  store: PluginStore;
  runtime: PluginRuntime;
  packages: PackageStaging & InstalledPackages;
  publisher: CatalogPublisher;
  launcher: AgentctlLauncher;
  clock: Clock;
  ids: IdGenerator;
  schemas: SchemaCompiler;
  /** Seals configurations and plugin secrets; by default with a key made for this backend only. */
  secrets: SecretBox;
  pluginLogs: PluginLogs;
  /** Where the spans of tool calls go; by default nowhere. */
  tracer: Tracer;
  /** What granted paths name on the host; by default the real disk, with a data dir that is not there. */
  hostPaths: HostPaths;
}

/**
 * The test module of the backend container: the in-memory adapters (no disk, no process), or
 * the ones a test gives, each bound once with its disposal as `serve` registers the real ones
 * (the spans, the logs, the store, then the Host grants). The Host API grants with no listener.
 */
export function inMemoryBackend(settings: Settings, given: Partial<InMemoryAdapters> = {}): BackendModule {
  const adapters: InMemoryAdapters = {
    store: given.store ?? new InMemoryPluginStore(),
    runtime: given.runtime ?? new InMemoryPluginRuntime({ restartBackoffMs: settings.restartBackoffMs, healthIntervalMs: settings.healthIntervalMs }),
    packages: given.packages ?? new InMemoryPackageSource(),
    publisher: given.publisher ?? new InMemoryCatalogPublisher(),
    launcher: given.launcher ?? new InMemoryAgentctlLauncher(),
    clock: given.clock ?? new SystemClock(),
    ids: given.ids ?? new CryptoIdGenerator(),
    schemas: given.schemas ?? new AjvSchemaCompiler(),
    secrets: given.secrets ?? new AesGcmSecretBox(randomBytes(32)),
    pluginLogs: given.pluginLogs ?? new InMemoryPluginLogs(),
    tracer: given.tracer ?? new SilentTracer(),
    hostPaths: given.hostPaths ?? new InMemoryHostPaths(new FsHostPaths('/memory', process.env)),
  };
  return (c: Container, disposals: Disposals) => {
    c.bind(Tracer).toConstantValue(adapters.tracer);
    disposals.add('traces', () => adapters.tracer.shutdown(0));
    c.bind(PluginLogs).toConstantValue(adapters.pluginLogs);
    disposals.add('plugin logs', () => adapters.pluginLogs.close());
    c.bind(STORE).toConstantValue(adapters.store);
    disposals.add('store', () => adapters.store.close());
    c.bind(PluginRuntime).toConstantValue(adapters.runtime);
    c.bind(PACKAGES).toConstantValue(adapters.packages);
    c.bind(HostPaths).toConstantValue(adapters.hostPaths);
    c.bind(CatalogPublisher).toConstantValue(adapters.publisher);
    c.bind(AgentctlLauncher).toConstantValue(adapters.launcher);
    c.bind(Clock).toConstantValue(adapters.clock);
    c.bind(IdGenerator).toConstantValue(adapters.ids);
    c.bind(SchemaCompiler).toConstantValue(adapters.schemas);
    c.bind(SecretBox).toConstantValue(adapters.secrets);
    let host: HostAccess | undefined;
    c.bind(HostAccess).toResolvedValue((sessions: HostSessions) => (host = new InMemoryHostAccess(sessions)), [HostSessions]);
    disposals.add('Host API', () => host?.close());
  };
}
