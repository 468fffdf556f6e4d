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
