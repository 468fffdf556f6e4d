/**
 * The compact JSON text of an object, remembered per object: a 3,200-tool snapshot check needs
 * each schema's text for its size rule, for the schema memo key and for the visible-tools
 * fingerprint, and serialising ~2 MB of schemas three times a swap was a third of its cost.
 * Callers pass values they do not mutate afterwards (parsed snapshots and manifests).
 */
const texts = new WeakMap<object, string>();

export function jsonText(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}
