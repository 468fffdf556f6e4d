import { isJsonObject, type JsonValue } from './json';

const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

type Reader = (raw: string) => { value: JsonValue } | undefined;

const READERS: Record<string, Reader> = {
  integer: (raw) => (INTEGER_TEXT.test(raw) && Number.isSafeInteger(Number(raw)) ? { value: Number(raw) } : undefined),
  number: (raw) => (NUMBER_TEXT.test(raw) && Number.isFinite(Number(raw)) ? { value: Number(raw) } : undefined),
  boolean: (raw) => (raw === 'true' || raw === 'false' ? { value: raw === 'true' } : undefined),
  null: (raw) => (raw === 'null' ? { value: null } : undefined),
  object: (raw) => parsedAs(raw, (value) => isJsonObject(value)),
  array: (raw) => parsedAs(raw, (value) => Array.isArray(value)),
};

/**
 * `config set KEY=VALUE` (docs/operations.md): the command-line text read as the type the key's
 * `config_schema` property declares (`integer`, `number`, `boolean`, `null`, JSON for
 * `object` and `array`; `string` as it is). With several types, `string` is tried last; with
 * no type, a member of `enum` (or the `const`) written as JSON is taken as that member. Text
 * that reads as none of them stays text, so the API refuses it as it refuses any wrong value.
 */
export function readConfigValue(property: unknown, raw: string): JsonValue {
  if (!isJsonObject(property)) return raw;
  const declared = typeof property.type === 'string' ? [property.type] : Array.isArray(property.type) ? property.type : [];
  const types = declared.filter((type): type is string => typeof type === 'string');
  for (const type of types) {
    const read = type === 'string' ? undefined : READERS[type]?.(raw);
    if (read) return read.value;
  }
  if (types.length === 0) {
    const members = Array.isArray(property.enum) ? property.enum : property.const !== undefined ? [property.const] : [];
    const member = members.find((candidate) => typeof candidate !== 'string' && JSON.stringify(candidate) === raw);
    if (member !== undefined) return member;
  }
  return raw;
}

function parsedAs(raw: string, accept: (value: unknown) => boolean): { value: JsonValue } | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return accept(value) ? { value: value as JsonValue } : undefined;
  } catch {
    return undefined;
  }
}
