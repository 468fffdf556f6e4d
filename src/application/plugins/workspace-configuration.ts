import { configurationViolations } from '../../domain/config-check';
import type { Violation } from '../../domain/errors';
import type { JsonObject } from '../../domain/json';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { StoreTransaction } from '../ports/plugin-records';
import type { SecretBox } from '../ports/secret-box';
import { mergedConfiguration, openWorkspaceConfiguration } from './plugin-configuration';

/** The ports the per-workspace configuration reads through. */
export interface WorkspaceConfigDeps {
  secrets: SecretBox;
  schemas: SchemaCompiler;
}

/**
 * Every way the merge of each workspace with overrides breaks `schema` once the instance
 * configuration is `instance` (docs/catalog-and-sessions.md, "Per-workspace configuration"),
 * each path prefixed `workspaces.<W>.`: an instance change or an upgrade must not leave a
 * workspace's calls with a configuration the plugin cannot take. Empty when every merge conforms.
 */
export async function workspaceMergeViolations(
  deps: WorkspaceConfigDeps,
  source: Pick<StoreTransaction, 'listWorkspaceConfigs'>,
  pluginId: string,
  schema: JsonObject | undefined,
  instance: JsonObject,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const { workspaceId, config } of await source.listWorkspaceConfigs(pluginId)) {
    const overrides = openWorkspaceConfiguration(deps.secrets, pluginId, workspaceId, config);
    for (const violation of configurationViolations(schema, mergedConfiguration(instance, overrides), deps.schemas)) {
      violations.push({ path: `workspaces.${workspaceId}.${violation.path}`, message: violation.message });
    }
  }
  return violations;
}
