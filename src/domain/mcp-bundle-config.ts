import type { Violation } from './errors';
import { isJsonObject, type JsonObject, type JsonValue } from './json';
import { kindOf, type ViolationList } from './violation-list';

/** What the substitutions of `mcp_config` need to know of one `user_config` field. */
export interface BundleField {
  sensitive: boolean;
  multiple: boolean;
}

/** A bundle's `user_config` as a `config_schema` (docs/mcp-servers.md, "Bundles"). */
export interface BundleConfig {
  fields: Map<string, BundleField>;
  /** Absent when the bundle has no `user_config`. */
  schema?: JsonObject;
  /** The `directory` and `file` fields, whose values are bound into the sandbox. */
  pathKeys: string[];
  warnings: Violation[];
}

const TYPES = ['string', 'number', 'boolean', 'directory', 'file'];
const PATH_TYPES = ['directory', 'file'];
/** A key a `${user_config.KEY}` can name. */
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** A path a `directory` or `file` value must be: absolute. */
const ABSOLUTE = '^/';
const KNOWN = new Set(['type', 'title', 'description', 'required', 'default', 'multiple', 'sensitive', 'min', 'max']);

/** The JSON Schema of one value: `sensitive` → a secret (`writeOnly`), a path → an absolute path, `multiple` → a list of them. */
function valueSchema(type: string, option: JsonObject): JsonObject {
  if (type === 'number') {
    const schema: JsonObject = { type: 'number' };
    if (typeof option.min === 'number') schema.minimum = option.min;
    if (typeof option.max === 'number') schema.maximum = option.max;
    return schema;
  }
  if (type === 'boolean') return { type: 'boolean' };
  if (type === 'string') return option.sensitive === true ? { type: 'string', writeOnly: true } : { type: 'string' };
  const path: JsonObject = { type: 'string', pattern: ABSOLUTE };
  return option.multiple === true ? { type: 'array', items: path } : path;
}

/** Why `value` cannot be the default of a value of `schema`, or undefined when it can. */
function defaultProblem(value: JsonValue, schema: JsonObject): string | undefined {
  const one = (item: JsonValue, type: unknown): string | undefined => {
    if (type === 'number') return typeof item === 'number' ? undefined : `must be a number, not ${kindOf(item)}`;
    if (type === 'boolean') return typeof item === 'boolean' ? undefined : `must be true or false, not ${kindOf(item)}`;
    if (typeof item !== 'string') return `must be text, not ${kindOf(item)}`;
    return undefined;
  };
  if (schema.type === 'array') {
    if (!Array.isArray(value)) return `must be a list of paths, not ${kindOf(value)}`;
    return value.map((item) => one(item, 'string')).find((problem) => problem !== undefined);
  }
  return one(value, schema.type);
}

/** A default is kept unless it holds a desktop substitution (`${HOME}`…) or a relative path, which a backend cannot give a meaning. */
function keptDefault(value: JsonValue, isPath: boolean): boolean {
  const texts = Array.isArray(value) ? value : [value];
  return texts.every((text) => typeof text !== 'string' || (!text.includes('${') && (!isPath || text.startsWith('/'))));
}

/** Maps `user_config`, adding each violation (named by its `user_config.KEY.field`) to `violations`. */
export function bundleConfigSchema(value: unknown, violations: ViolationList): BundleConfig {
  const config: BundleConfig = { fields: new Map(), pathKeys: [], warnings: [] };
  if (value === undefined || value === null) return config;
  if (!isJsonObject(value)) {
    violations.add('user_config', `must be a mapping of configuration fields, not ${kindOf(value)}`);
    return config;
  }
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [key, option] of Object.entries(value)) {
    const at = `user_config.${key}`;
    if (!KEY.test(key)) {
      violations.add(at, `the key must match ${KEY.source}, so that \${user_config.KEY} can name it`);
      continue;
    }
    if (!isJsonObject(option)) {
      violations.add(at, `must be a mapping with a type, not ${kindOf(option)}`);
      continue;
    }
    const type = option.type;
    if (typeof type !== 'string' || !TYPES.includes(type)) {
      violations.add(`${at}.type`, `must be one of ${TYPES.join(', ')}`);
      continue;
    }
    const isPath = PATH_TYPES.includes(type);
    for (const flag of ['required', 'multiple', 'sensitive'] as const) {
      if (option[flag] !== undefined && typeof option[flag] !== 'boolean')
        violations.add(`${at}.${flag}`, `must be true or false, not ${kindOf(option[flag])}`);
    }
    if (option.sensitive === true && type !== 'string') violations.add(`${at}.sensitive`, `applies to a string, not a ${type}`);
    if (option.multiple === true && !isPath) violations.add(`${at}.multiple`, `applies to a directory or a file, not a ${type}`);
    for (const bound of ['min', 'max'] as const) {
      if (option[bound] === undefined) continue;
      if (type !== 'number') violations.add(`${at}.${bound}`, `applies to a number, not a ${type}`);
      else if (typeof option[bound] !== 'number') violations.add(`${at}.${bound}`, `must be a number, not ${kindOf(option[bound])}`);
    }
    for (const text of ['title', 'description'] as const) {
      if (option[text] !== undefined && typeof option[text] !== 'string') violations.add(`${at}.${text}`, `must be text, not ${kindOf(option[text])}`);
    }
    const schema = valueSchema(type, option);
    if (typeof option.title === 'string') schema.title = option.title;
    if (typeof option.description === 'string') schema.description = option.description;
    if (option.default !== undefined && option.default !== null) {
      const problem = defaultProblem(option.default, schema);
      if (problem !== undefined) violations.add(`${at}.default`, problem);
      else if (keptDefault(option.default, isPath)) schema.default = option.default;
      else
        config.warnings.push({
          path: `${at}.default`,
          message: 'is not kept: it holds a desktop substitution or a relative path, which mean nothing on a backend; set the value with plugin config set',
        });
    }
    for (const unknown of Object.keys(option).filter((name) => !KNOWN.has(name))) {
      config.warnings.push({ path: `${at}.${unknown}`, message: 'is not an MCPB user_config field; it is ignored' });
    }
    Object.defineProperty(properties, key, { value: schema, enumerable: true, writable: true, configurable: true });
    if (option.required === true) required.push(key);
    if (isPath) config.pathKeys.push(key);
    config.fields.set(key, { sensitive: option.sensitive === true, multiple: option.multiple === true });
  }
  config.schema = { type: 'object', properties, additionalProperties: false, ...(required.length > 0 ? { required } : {}) };
  return config;
}
