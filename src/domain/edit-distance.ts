/**
 * The Levenshtein distance between two strings: the fewest single-character insertions,
 * deletions and substitutions that turn `a` into `b`. Counted in UTF-16 code units, which is
 * exact for the ASCII field names it is used on.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // One row of the table at a time: memory is linear in the shorter string.
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  let previous = Array.from({ length: short.length + 1 }, (_, i) => i);
  for (let j = 1; j <= long.length; j += 1) {
    const current = [j];
    for (let i = 1; i <= short.length; i += 1) {
      const substitution = previous[i - 1] + (short[i - 1] === long[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[i] + 1, current[i - 1] + 1));
    }
    previous = current;
  }
  return previous[short.length];
}

/**
 * The candidate a misspelt `word` most likely meant: the nearest one within a third of the
 * longer name's length (at least 1, so `agent_tool` finds `agent_tools`), first in `candidates`
 * order on a tie; undefined when nothing is that close.
 */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    const allowed = Math.max(1, Math.floor(Math.max(word.length, name.length) / 3));
    if (distance > allowed) continue;
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}
