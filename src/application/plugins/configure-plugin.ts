import { unmaskConfiguration } from '../../domain/config-fields';
import { configurationViolations } from '../../domain/config-check';
import { substitutionViolations } from '../../domain/permission-paths';
import { mcpSubstitutionViolations } from '../../domain/mcp-runtime-substitution';
import { canonicalJson } from '../../domain/canonical-json';
import { ConfigInvalidError } from '../../domain/errors';
import { isJsonObject, type JsonObject } from '../../domain/json';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginRecords } from '../ports/plugin-records';
import type { PluginInstance } from '../ports/plugin-runtime';
import type { SealedValue, SecretBox } from '../ports/secret-box';
import type { Settings } from '../settings';
import { errorCode, errorMessage } from '../shared/error-code';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { assertNamesFree } from './assert-names-free';
import { findPlugin } from './find-plugin';
import { sealConfiguration } from './plugin-configuration';
import type { PluginProcesses } from './plugin-processes';
import type { StoredConfiguration } from './stored-configuration';

export interface ConfigurePluginInput {
  pluginId: string;
  /** The whole configuration as the operator sent it; a secret sent as "********" keeps its stored value. */
  values: unknown;
}

/**
 * Replaces a plugin's configuration (docs/lifecycle.md, §9). It must satisfy config_schema (else
 * CONFIG_INVALID with every violation, nothing changed); the same values are a no-op. For an
 * enabled plugin a new process is started with the new configuration and must be healthy
 * before anything changes: calls keep reaching the old process until the switch and its calls
 * in flight may finish, then it stops. If the new process fails, the old process and the old
 * configuration stay (PLUGIN_START_FAILED). A disabled plugin only gets the configuration.
 */
export class ConfigurePlugin {
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    private readonly records: PluginRecords,
    private readonly processes: PluginProcesses,
    private readonly catalog: CatalogService,
    private readonly locks: KeyedMutex,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
    private readonly schemas: SchemaCompiler,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  async execute(input: ConfigurePluginInput): Promise<PluginRecord> {
    return this.locks.run(input.pluginId, async () => {
      const { records: store, processes, secrets, logger } = this;
      const record = await findPlugin(store, input.pluginId);
      const stored = await processes.configuration(record.id, record.manifest);
      const values = this.validated(record, input.values, stored);
      // A workspace's calls would get the merge: a change that breaks one is refused as the merge would be.
      const broken = await processes.workspaceMerges(record.id, record.manifest, values);
      if (broken.length > 0) this.refuse(broken);
      if (stored.readable && canonicalJson(values) === canonicalJson(stored.values)) return record;
      const sealed = sealConfiguration(secrets, record.id, values);
      if (!record.enabled) {
        await this.catalog.commit(async (tx) => {
          await findPlugin(tx, record.id);
          await tx.saveConfig(record.id, sealed);
        });
        logger.info({ plugin_id: record.id, status: record.status }, 'plugin configuration changed');
        return record;
      }
      // A plugin that was not serving brings its tools into the catalog: its names must be free.
      assertNamesFree(record, await store.listPlugins(), this.settings.toolPrefix);
      let fresh: PluginInstance;
      try {
        fresh = await processes.start(record.manifest, sealed);
      } catch (error) {
        logger.warn({ plugin_id: record.id, code: errorCode(error) }, 'plugin configuration change failed');
        throw error;
      }
      return this.switchTo(record, fresh, sealed);
    });
  }

  /** Resolves once every old process a change replaced has stopped (for shutdown and tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.retiring]);
  }

  private validated(record: PluginRecord, sent: unknown, stored: StoredConfiguration): JsonObject {
    const schema = record.manifest.config_schema;
    if (!isJsonObject(sent)) return this.refuse(configurationViolations(schema, sent, this.schemas));
    const { values, violations } = unmaskConfiguration(schema, sent, stored.values);
    const all = [
      ...violations,
      ...configurationViolations(schema, values, this.schemas),
      ...substitutionViolations(record.manifest.permissions, values),
      ...mcpSubstitutionViolations(record.manifest.runtime, values),
    ];
    return all.length > 0 ? this.refuse(all) : values;
  }

  private refuse(violations: ConfigInvalidError['violations']): never {
    throw new ConfigInvalidError(violations);
  }

  /** New calls go to the new process from now on; the record and configuration follow in one commit. */
  private async switchTo(record: PluginRecord, fresh: PluginInstance, sealed: SealedValue): Promise<PluginRecord> {
    const { processes, catalog, clock, logger, settings } = this;
    const old = processes.putInService(record.id, fresh);
    let next: PluginRecord;
    try {
      next = await catalog.commit(async (tx) => {
        const current = await findPlugin(tx, record.id);
        assertNamesFree(current, await tx.listPlugins(), settings.toolPrefix);
        await tx.saveConfig(record.id, sealed);
        const changed: PluginRecord = { ...current, status: 'active', last_error: null, last_error_at: null, restart_count: 0, updated_at: clock.isoNow() };
        await tx.savePlugin(changed);
        return changed;
      });
    } catch (error) {
      await processes.takeBack(record.id, fresh, old);
      throw error;
    }
    if (old) this.retire(old);
    logger.info({ plugin_id: record.id, status: next.status }, 'plugin configuration changed');
    return next;
  }

  /** Lets the old process finish its calls in flight (they end by the tool timeout anyway), then stops it. */
  private retire(old: PluginInstance): void {
    const { processes, settings, logger } = this;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, settings.toolTimeoutMs + 1000);
      (timer as { unref?: () => void }).unref?.();
    });
    const done = Promise.race([processes.whenIdle(old), deadline])
      .then(() => {
        clearTimeout(timer);
        return processes.retire(old);
      })
      .catch((error: unknown) =>
        logger.error({ plugin_id: old.pluginId, err: errorMessage(error) }, 'could not stop the process a configuration change replaced'),
      )
      .finally(() => this.retiring.delete(done));
    this.retiring.add(done);
  }
}
