/**
 * A snapshot's tool entries with the JSON text each was parsed from (docs/agentctl.md
 * "Applying a snapshot"). Two entries parsed from the same text are the same JSON data, keys in
 * the same order, so a swap compares each incoming tool with the held one as one string
 * instead of walking both object graphs: at 3,200 tools that walk was most of a swap.
 */
const entryTexts = new WeakMap<object, string>();

/** The text an entry was parsed from by parseSnapshotText, if it was. */
export function entryText(entry: unknown): string | undefined {
  return typeof entry === 'object' && entry !== null ? entryTexts.get(entry) : undefined;
}

/**
 * Keeps an entry's text on its own: a slice of the payload's text would hold the whole payload
 * (2 MB at 3,200 tools) for as long as the tool made from the entry is held. Called for the
 * entries that tools are made from, so only changed tools pay for the copy.
 */
export function keepEntryText(entry: unknown): void {
  const text = entryText(entry);
  // Slicing the concatenation flattens it into a new string of the entry's length (V8).
  if (text !== undefined) entryTexts.set(entry as object, ` ${text}`.slice(1));
}

/**
 * JSON.parse of `text`, remembering for each entry of the `tools` list of the object at `path`
 * (top level by default; `['payload']` for a link frame's snapshot) its text. Throws as
 * JSON.parse does. When the text cannot be split (no such list), the value is returned as
 * parsed and its entries are compared by value, as before.
 */
export function parseSnapshotText(text: string, path: readonly string[] = []): unknown {
  const value: unknown = JSON.parse(text);
  let holder: unknown = value;
  for (const key of path) holder = isObject(holder) ? holder[key] : undefined;
  const tools = isObject(holder) ? holder.tools : undefined;
  if (!Array.isArray(tools) || tools.length === 0) return value;
  const spans = toolSpans(text, skipSpace(text, 0), path, 0);
  // The text is valid JSON (it parsed), so the split matches the list; a count that does not is a bug here.
  if (spans === undefined || spans.length !== tools.length * 2) return value;
  for (let i = 0; i < tools.length; i++) {
    const entry: unknown = tools[i];
    if (typeof entry === 'object' && entry !== null) entryTexts.set(entry, text.slice(spans[i * 2], spans[i * 2 + 1]));
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Start/end offsets of each element of the "tools" list of the object at `path[depth..]` from `i`, in valid JSON text. */
function toolSpans(text: string, i: number, path: readonly string[], depth: number): number[] | undefined {
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(text, i + 1);
  const wanted = depth < path.length ? JSON.stringify(path[depth]) : '"tools"';
  let found: number[] | undefined;
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const key = text.slice(i, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipSpace(text, i + 1);
    // A repeated key: JSON.parse keeps the last one, and so does this.
    if (key === wanted && depth === path.length && text.charCodeAt(i) === OPEN_BRACKET) {
      found = listSpans(text, i);
      // listSpans ends with the offset after the list.
      i = found === undefined ? valueEnd(text, i) : found.pop()!;
    } else {
      if (key === wanted) found = depth < path.length ? toolSpans(text, i, path, depth + 1) : undefined;
      i = valueEnd(text, i);
    }
    i = skipSpace(text, i);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
    else break;
  }
  return found;
}

/** Start/end offsets of each element of the list at `i`, then the offset after the list. */
function listSpans(text: string, i: number): number[] | undefined {
  if (text.charCodeAt(i) !== OPEN_BRACKET) return undefined;
  const spans: number[] = [];
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) !== CLOSE_BRACKET) {
    const end = valueEnd(text, i);
    spans.push(i, end);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
    else if (text.charCodeAt(i) !== CLOSE_BRACKET) return undefined;
  }
  // Last, the offset after the closing bracket, for the caller to go on from.
  spans.push(i + 1);
  return spans;
}

function skipSpace(text: string, i: number): number {
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  return i;
}

/** The offset just after the string starting at `i` (its opening quote). */
function stringEnd(text: string, i: number): number {
  for (;;) {
    const quote = text.indexOf('"', i + 1);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    i = quote;
    if (backslashes % 2 === 0) return quote + 1;
  }
}

/** The offset just after the value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: runs to the next delimiter.
    let c = first;
    while (i < text.length && c !== COMMA && c !== CLOSE_BRACE && c !== CLOSE_BRACKET && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)
      c = text.charCodeAt(++i);
    return i;
  }
  let depth = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return i;
}
