import type { JsonValue } from './json';

const MAX_DEPTH = 256;

/**
 * True when `value` is plain JSON data: null, booleans, finite numbers, strings, arrays and
 * plain objects, with no cycles and no nesting past 256 levels. Input from a YAML or JSON
 * parser always is; anything else (dates, functions, undefined, NaN…) would not survive
 * storage or the wire unchanged, so the rules refuse it.
 */
export function isPlainJson(value: unknown): value is JsonValue {
  return check(value, 0);
}

/**
 * Allocation-free walk (it runs over every schema of a 3,200-tool snapshot on each swap). A
 * cycle needs no visited set: following it never ends, so it fails the depth limit on its
 * first path, and every other path is cut short by that failure.
 */
function check(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    // Indexing (not every()) so a hole in a sparse array counts as undefined, which is refused.
    for (let i = 0; i < value.length; i++) if (!check(value[i], depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key) && !check((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
