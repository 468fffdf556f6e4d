import type { Violation } from './errors';
import { isJsonObject, type JsonObject, type JsonValue } from './json';

/** What the operator API and CLI show instead of a secret's value (docs/operations.md). */
export const SECRET_MASK = '********';

/**
 * The secrets of a `config_schema` (docs/plugin-protocol.md §2): its top-level properties declaring
 * `writeOnly: true` or `format: "password"`. Configuration is a flat set of keys (what
 * `config set KEY=VALUE` names), so nested properties are not looked at.
 */
export function secretFields(schema: JsonObject | undefined): Set<string> {
  const secrets = new Set<string>();
  const properties = schema?.properties;
  if (!isJsonObject(properties)) return secrets;
  for (const [key, property] of Object.entries(properties)) {
    if (isJsonObject(property) && (property.writeOnly === true || property.format === 'password')) secrets.add(key);
  }
  return secrets;
}

/** The configuration as the operator API shows it: every key that has a value, each secret masked. */
export function maskConfiguration(schema: JsonObject | undefined, values: JsonObject): JsonObject {
  const secrets = secretFields(schema);
  // fromEntries defines each key as data, so a key such as "__proto__" stays a key.
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, secrets.has(key) ? SECRET_MASK : value]));
}

/**
 * A whole configuration as an operator sent it, with each secret sent as the mask replaced
 * by its stored value (docs/operations.md: "********" keeps a secret). A mask for a secret that has
 * no stored value is a violation: taking it literally would store the mask as the secret.
 */
export function unmaskConfiguration(schema: JsonObject | undefined, sent: JsonObject, stored: JsonObject): { values: JsonObject; violations: Violation[] } {
  const secrets = secretFields(schema);
  const entries: Array<[string, JsonValue]> = [];
  const violations: Violation[] = [];
  for (const [key, value] of Object.entries(sent)) {
    if (value !== SECRET_MASK || !secrets.has(key)) {
      entries.push([key, value]);
    } else if (Object.hasOwn(stored, key)) {
      entries.push([key, stored[key]]);
    } else {
      violations.push({ path: key, message: `"${SECRET_MASK}" keeps a stored secret, and this one has none yet: send its value` });
    }
  }
  return { values: Object.fromEntries(entries), violations };
}
