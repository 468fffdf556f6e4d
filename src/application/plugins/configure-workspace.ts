import { unmaskConfiguration } from '../../domain/config-fields';
import { configurationViolations } from '../../domain/config-check';
import { canonicalJson } from '../../domain/canonical-json';
import { ConfigInvalidError, ToolportError } from '../../domain/errors';
import { isJsonObject } from '../../domain/json';
import type { PluginRecord } from '../../domain/plugin-record';
import { workspaceIdProblem } from '../../domain/workspace-id';
import { workspaceOverrideViolations } from '../../domain/workspace-overrides';
import type { Logger } from '../ports/logger';
import type { PluginRecords } from '../ports/plugin-records';
import type { KeyedMutex } from '../shared/keyed-mutex';
import { findPlugin } from './find-plugin';
import { mergedConfiguration, openConfiguration, openWorkspaceConfiguration, sealWorkspaceConfiguration } from './plugin-configuration';
import type { WorkspaceConfigDeps } from './workspace-configuration';

export interface ConfigureWorkspaceInput {
  pluginId: string;
  workspaceId: string;
  /** The workspace's whole overrides as the operator sent them; a secret sent as "********" keeps the workspace's stored one. */
  values: unknown;
}

/**
 * Replaces one workspace's configuration overrides (docs/catalog-and-sessions.md, "Per-workspace
 * configuration"): each top-level key set there replaces the instance value for calls bound to
 * that workspace, and the merge must satisfy config_schema (else CONFIG_INVALID with every
 * violation, nothing changed). A key that cannot differ per workspace (any key of an mcp-stdio
 * plugin, a key a permission path substitutes) is CONFIG_INVALID too, "not applicable per
 * workspace". `{}` removes the workspace's overrides. It answers at once: the
 * plugin is never restarted and the catalog never changes, since a call reads its workspace's
 * configuration when it asks for it.
 */
export class ConfigureWorkspace {
  constructor(
    private readonly records: PluginRecords,
    private readonly locks: KeyedMutex,
    private readonly deps: WorkspaceConfigDeps,
    private readonly logger: Logger,
  ) {}

  async execute(input: ConfigureWorkspaceInput): Promise<PluginRecord> {
    const problem = workspaceIdProblem(input.workspaceId);
    if (problem !== null) throw new ToolportError('BAD_REQUEST', `workspace ${problem}`);
    // The plugin's lock orders this with an instance change, which checks every workspace's merge.
    return this.locks.run(input.pluginId, () =>
      this.records.transaction(async (tx) => {
        const { secrets, schemas } = this.deps;
        const record = await findPlugin(tx, input.pluginId);
        const schema = record.manifest.config_schema;
        if (!isJsonObject(input.values)) throw new ConfigInvalidError(configurationViolations(schema, input.values, schemas));
        const storedSealed = await tx.getWorkspaceConfig(record.id, input.workspaceId);
        const stored = openWorkspaceConfiguration(secrets, record.id, input.workspaceId, storedSealed);
        const { values, violations } = unmaskConfiguration(schema, input.values, stored);
        const instance = openConfiguration(secrets, record.id, await tx.getConfig(record.id));
        const fixed = workspaceOverrideViolations(record.manifest, input.values);
        if (fixed.length > 0) throw new ConfigInvalidError(fixed, 'a workspace cannot override these keys');
        const all = [...violations, ...configurationViolations(schema, mergedConfiguration(instance, values), schemas)];
        if (all.length > 0) throw new ConfigInvalidError(all);
        if (storedSealed && canonicalJson(values) === canonicalJson(stored)) return record;
        const sealed = Object.keys(values).length === 0 ? null : sealWorkspaceConfiguration(secrets, record.id, input.workspaceId, values);
        await tx.saveWorkspaceConfig(record.id, input.workspaceId, sealed);
        this.logger.info({ plugin_id: record.id, workspace_id: input.workspaceId }, 'workspace configuration changed');
        return record;
      }),
    );
  }
}
