/**
 * The keys that appear more than once in one object of a JSON text, at any depth. JSON.parse
 * keeps the last of them silently, so a log line is read raw to see what a reader would get.
 */
export function duplicateJsonKeys(text: string): string[] {
  const found: string[] = [];
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const value = JSON.parse(text.slice(i, end + 1)) as string;
      const keys = open[open.length - 1];
      if (expectKey && keys) {
        if (keys.has(value)) found.push(value);
        keys.add(value);
        expectKey = false;
      }
      i = end;
    } else if (char === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (char === '[') {
      open.push(null);
    } else if (char === '}' || char === ']') {
      open.pop();
    } else if (char === ',') {
      expectKey = open[open.length - 1] !== null;
    }
  }
  return found;
}
