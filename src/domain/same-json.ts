/**
 * True when `candidate` is the same JSON data as `known`, keys in the same order; `known` must
 * be plain JSON (see isPlainJson). A candidate that is the same is plain JSON too, since every
 * node it has matches a plain node of `known` (its objects must be plain objects).
 */
export function sameJson(candidate: unknown, known: unknown): boolean {
  if (candidate === known) return true;
  if (typeof candidate !== 'object' || typeof known !== 'object' || candidate === null || known === null) return false;
  if (Array.isArray(known)) {
    if (!Array.isArray(candidate) || candidate.length !== known.length) return false;
    for (let i = 0; i < known.length; i++) if (!sameJson(candidate[i], known[i])) return false;
    return true;
  }
  if (Array.isArray(candidate)) return false;
  const proto: unknown = Object.getPrototypeOf(candidate);
  if (proto !== Object.prototype && proto !== null) return false;
  // Key order counts too: schemas are listed verbatim, so an equal one must read the same.
  // for-in walks the candidate's keys without allocating a list (JSON objects have no
  // inherited enumerable keys; a candidate with any fails on the count or the order).
  const knownKeys = Object.keys(known);
  let i = 0;
  for (const key in candidate) {
    if (key !== knownKeys[i] || !Object.hasOwn(candidate, key)) return false;
    if (!sameJson((candidate as Record<string, unknown>)[key], (known as Record<string, unknown>)[key])) return false;
    i++;
  }
  return i === knownKeys.length;
}
