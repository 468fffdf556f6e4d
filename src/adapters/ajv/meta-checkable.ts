import { linearPatternProblem } from './linear-regexp';

/**
 * Which schemas ajv's meta-schema validation can vouch for without compiling (strict: false).
 * Compiling can still fail on a schema the meta-schema accepts when it has a `$ref` (or an
 * id or anchor a `$ref` could name), a regular expression ajv refuses, an empty `enum`, or a
 * keyword outside JSON Schema's own vocabularies (ajv's `nullable`, `discriminator`, `id`,
 * `$async`…). A schema that uses only the keywords below, with valid regular expressions and
 * non-empty enums, compiles exactly when it is meta-valid; anything else is compiled.
 */

/** Keywords whose value is not a schema and cannot fail a meta-valid compile. */
const PLAIN = new Set([
  'type',
  'required',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
  'format',
  'title',
  'description',
  '$comment',
  'readOnly',
  'writeOnly',
  'deprecated',
  'contentMediaType',
  'contentEncoding',
  'dependentRequired',
  'const',
  'default',
  'examples',
]);
/** Keywords holding one schema. */
const ONE = new Set([
  'additionalProperties',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
/** Keywords holding a list of schemas. */
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords holding a map of schemas. */
const MAP = new Set(['properties', 'dependentSchemas']);

const MAX_DEPTH = 64;

export function metaCheckable(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || depth > MAX_DEPTH) return false;
  for (const [keyword, value] of Object.entries(schema as Record<string, unknown>)) {
    if (!keywordCheckable(keyword, value, depth + 1)) return false;
  }
  return true;
}

function keywordCheckable(keyword: string, value: unknown, depth: number): boolean {
  if (PLAIN.has(keyword)) return true;
  if (ONE.has(keyword)) return metaCheckable(value, depth);
  if (LIST.has(keyword)) return Array.isArray(value) && value.every((item) => metaCheckable(item, depth));
  if (MAP.has(keyword)) return isMap(value) && Object.values(value).every((item) => metaCheckable(item, depth));
  switch (keyword) {
    case 'enum':
      return Array.isArray(value) && value.length > 0;
    case 'pattern':
      return typeof value === 'string' && compilesAsRegExp(value);
    case 'patternProperties':
      return isMap(value) && Object.entries(value).every(([pattern, item]) => compilesAsRegExp(pattern) && metaCheckable(item, depth));
    case 'items':
      // draft-07 allows a list; the meta-schema of the draft in force decides whether it may.
      return Array.isArray(value) ? value.every((item) => metaCheckable(item, depth)) : metaCheckable(value, depth);
    case 'dependencies':
      return isMap(value) && Object.values(value).every((item) => Array.isArray(item) || metaCheckable(item, depth));
    default:
      return false;
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Patterns compile on the linear-time engine the compiler gives ajv. */
function compilesAsRegExp(pattern: string): boolean {
  return linearPatternProblem(pattern) === undefined;
}
