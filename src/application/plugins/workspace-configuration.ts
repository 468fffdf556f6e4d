import { configurationViolations } from '../../domain/config-check';
import type { Violation } from '../../domain/errors';
import type { JsonObject } from '../../domain/json';
import type { PluginManifest } from '../../domain/manifest';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import { workspaceOverrideViolations } from '../../domain/workspace-overrides';
import type { StoreTransaction } from '../ports/plugin-records';
import type { SecretBox } from '../ports/secret-box';
import { mergedConfiguration, openWorkspaceConfiguration } from './plugin-configuration';

/** The ports the per-workspace configuration reads through. */
export interface WorkspaceConfigDeps {
  secrets: SecretBox;
  schemas: SchemaCompiler;
}

/**
 * Every way the merge of each workspace with overrides breaks `manifest`'s config_schema once
 * the instance configuration is `instance` (docs/http-api.md, "a workspace's overrides"), and
 * every override key `manifest` does not let differ per workspace (an upgrade to a version
 * whose permission paths substitute it, or that is an mcp-stdio server), each path prefixed
 * `workspaces.<W>.`: an instance change or an upgrade must not leave a workspace's calls with a
 * configuration the plugin cannot take. Empty when every merge conforms.
 */
export async function workspaceMergeViolations(
  deps: WorkspaceConfigDeps,
  source: Pick<StoreTransaction, 'listWorkspaceConfigs'>,
  pluginId: string,
  manifest: PluginManifest,
  instance: JsonObject,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const { workspaceId, config } of await source.listWorkspaceConfigs(pluginId)) {
    const overrides = openWorkspaceConfiguration(deps.secrets, pluginId, workspaceId, config);
    const merged = mergedConfiguration(instance, overrides);
    for (const violation of [...workspaceOverrideViolations(manifest, overrides), ...configurationViolations(manifest.config_schema, merged, deps.schemas)]) {
      violations.push({ path: `workspaces.${workspaceId}.${violation.path}`, message: violation.message });
    }
  }
  return violations;
}
