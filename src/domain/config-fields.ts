import type { Violation } from './errors';
import { isJsonObject, type JsonObject, type JsonValue } from './json';

/** What the operator API and CLI show instead of a secret's value (docs/operations.md). */
export const SECRET_MASK = '********';

/** Keywords whose values are data, never a subschema: a `format: "password"` there declares nothing. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);
/** Subschemas that may add top-level keys of the configuration (each a schema, or a list of them). */
const KEY_BRANCHES = ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else'];
/** Subschemas that hold keys only by pattern, or only negatively: a secret there has no key to mask. */
const UNNAMED = ['patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'not', 'contains'];

/** What a `config_schema` declares secret, and what it declares that the product cannot honour. */
export interface SecretDeclarations {
  secrets: Set<string>;
  /** Each a sentence for a `config_schema` violation; empty when every declaration is honoured. */
  problems: string[];
}

/** A local JSON pointer (`#`, `#/definitions/x`, `#/$defs/x`) into `root`; undefined when it is not one or leads nowhere. */
function resolveLocal(root: JsonObject, ref: string): JsonObject | undefined {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let node: JsonValue = root;
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isJsonObject(node) && !Array.isArray(node)) return undefined;
    const next: JsonValue | undefined = Array.isArray(node) ? node[Number(part)] : Object.hasOwn(node, part) ? node[part] : undefined;
    if (next === undefined) return undefined;
    node = next;
  }
  return isJsonObject(node) ? node : undefined;
}

class SecretWalk {
  readonly secrets = new Set<string>();
  readonly problems: string[] = [];

  constructor(private readonly root: JsonObject) {}

  /** The schema `node` stands for once its local `$ref` is followed; undefined (and a problem) for one that cannot be. */
  private target(node: JsonObject, where: string): JsonObject | undefined {
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    const found = resolveLocal(this.root, ref);
    if (!found) this.problems.push(`${where}: "$ref" ${JSON.stringify(ref)} is not a reference inside config_schema, so its secrets cannot be known`);
    return found;
  }

  /** Whether `node` or anything it contains or refers to marks a value secret. */
  declaresSecret(node: JsonValue, where: string, seen = new Set<JsonObject>()): boolean {
    if (Array.isArray(node)) return node.some((item, i) => this.declaresSecret(item, `${where}[${i}]`, seen));
    if (!isJsonObject(node) || seen.has(node)) return false;
    seen.add(node);
    if (node.writeOnly === true || node.format === 'password') return true;
    if (typeof node.$ref === 'string') {
      const target = this.target(node, where);
      if (target && this.declaresSecret(target, where, seen)) return true;
    }
    return Object.entries(node).some(([key, value]) => !DATA_KEYWORDS.has(key) && this.declaresSecret(value, `${where}.${key}`, seen));
  }

  /** Collects the top-level keys `node` declares (through `$ref` and the combinators), each secret when its schema declares one anywhere. */
  keys(node: JsonObject, where: string, seen = new Set<JsonObject>()): void {
    if (seen.has(node)) return;
    seen.add(node);
    const schema = this.target(node, where);
    if (!schema) return;
    if (schema !== node) return this.keys(schema, where, seen);
    if (schema.writeOnly === true || schema.format === 'password') {
      this.problems.push(`${where}: the configuration as a whole cannot be a secret; mark each secret key under "properties"`);
    }
    const properties = schema.properties;
    if (isJsonObject(properties)) {
      for (const [key, property] of Object.entries(properties)) {
        if (this.declaresSecret(property, `${where}.properties.${key}`)) this.secrets.add(key);
      }
    }
    for (const branch of KEY_BRANCHES) {
      const value = schema[branch];
      const list = Array.isArray(value) ? value : [value];
      list.forEach((item, i) => {
        if (isJsonObject(item)) this.keys(item, Array.isArray(value) ? `${where}.${branch}[${i}]` : `${where}.${branch}`, seen);
      });
    }
    for (const keyword of ['dependentSchemas', 'dependencies']) {
      const value = schema[keyword];
      if (!isJsonObject(value)) continue;
      for (const [key, item] of Object.entries(value)) if (isJsonObject(item)) this.keys(item, `${where}.${keyword}.${key}`, seen);
    }
    for (const keyword of UNNAMED) {
      if (schema[keyword] !== undefined && this.declaresSecret(schema[keyword], `${where}.${keyword}`)) {
        this.problems.push(`${where}.${keyword}: a secret declared here has no key name to be masked under; declare it under "properties"`);
      }
    }
  }
}

/**
 * The secrets of a `config_schema` (docs/plugin-protocol.md §12): the top-level keys whose
 * schema marks a value `writeOnly: true` or `format: "password"` — directly, through a local
 * `$ref`, inside `allOf`/`anyOf`/`oneOf` (or `if`/`then`/`else`, `dependentSchemas`), or anywhere
 * beneath the key (a secret nested in an object or a list masks the whole key, since
 * configuration is a flat set of keys). `problems` lists what cannot be honoured: a secret
 * declared where no key names it (`patternProperties`, `additionalProperties`, `not`, the root
 * itself) or behind a `$ref` that leads outside the schema. Validation refuses those.
 */
export function secretDeclarations(schema: JsonObject | undefined): SecretDeclarations {
  if (!schema) return { secrets: new Set(), problems: [] };
  const walk = new SecretWalk(schema);
  walk.keys(schema, '(root)');
  return { secrets: walk.secrets, problems: [...new Set(walk.problems)] };
}

/** The secret keys of a `config_schema` (see secretDeclarations). */
export function secretFields(schema: JsonObject | undefined): Set<string> {
  return secretDeclarations(schema).secrets;
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
