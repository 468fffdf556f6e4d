import type { JsonValue } from './json';

const MAX_DEPTH = 256;

/**
 * True when `value` is plain JSON data: null, booleans, finite numbers, strings, arrays and
 * plain objects, with no cycles and no nesting past 256 levels. Input from a YAML or JSON
 * parser always is; anything else (dates, functions, undefined, NaN…) would not survive
 * storage or the wire unchanged, so the rules refuse it.
 */
export function isPlainJson(value: unknown): value is JsonValue {
  return check(value, new Set<object>(), 0);
}

function check(value: unknown, ancestors: Set<object>, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth > MAX_DEPTH || ancestors.has(value)) return false;
  if (!Array.isArray(value) && !isPlainObject(value)) return false;
  ancestors.add(value);
  // Indexing (not every()) so a hole in a sparse array counts as undefined, which is refused.
  const children: unknown[] = Array.isArray(value) ? Array.from(value) : Object.values(value);
  const ok = children.every((child) => check(child, ancestors, depth + 1));
  ancestors.delete(value);
  return ok;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
