import { isJsonObject, type JsonObject } from '../../domain/json';
import type { SealedValue, SecretBox } from '../ports/secret-box';

/** The context a configuration is sealed in: it opens only as this plugin's. */
function configContext(pluginId: string): string {
  return `config:${pluginId}`;
}

/**
 * A configuration is sealed whole (not only its secret fields), so a key that a later
 * version's config_schema makes a secret was never stored in clear either.
 */
export function sealConfiguration(box: SecretBox, pluginId: string, values: JsonObject): SealedValue {
  return box.seal(JSON.stringify(values), configContext(pluginId));
}

/** The values of a sealed configuration; `{}` for none. Throws SecretUnreadableError. */
export function openConfiguration(box: SecretBox, pluginId: string, sealed: SealedValue | undefined | null): JsonObject {
  if (!sealed) return {};
  const values: unknown = JSON.parse(box.open(sealed, configContext(pluginId)));
  return isJsonObject(values) ? values : {};
}

/** A workspace's overrides open only as that plugin's, for that workspace. */
function workspaceConfigContext(pluginId: string, workspaceId: string): string {
  return `workspace-config:${pluginId}:${workspaceId}`;
}

/** Seals a workspace's overrides whole, as the instance configuration is sealed. */
export function sealWorkspaceConfiguration(box: SecretBox, pluginId: string, workspaceId: string, values: JsonObject): SealedValue {
  return box.seal(JSON.stringify(values), workspaceConfigContext(pluginId, workspaceId));
}

/** The values of a workspace's sealed overrides; `{}` for none. Throws SecretUnreadableError. */
export function openWorkspaceConfiguration(box: SecretBox, pluginId: string, workspaceId: string, sealed: SealedValue | undefined | null): JsonObject {
  if (!sealed) return {};
  const values: unknown = JSON.parse(box.open(sealed, workspaceConfigContext(pluginId, workspaceId)));
  return isJsonObject(values) ? values : {};
}

/**
 * The configuration a call bound to a workspace sees (docs/catalog-and-sessions.md,
 * "Per-workspace configuration"): each top-level key the workspace sets replaces the instance's.
 */
export function mergedConfiguration(instance: JsonObject, overrides: JsonObject): JsonObject {
  // fromEntries defines each key as data, so a key such as "__proto__" stays a key.
  return Object.fromEntries([...Object.entries(instance), ...Object.entries(overrides)]);
}
