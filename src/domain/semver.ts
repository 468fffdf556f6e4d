/** A parsed semantic version (semver.org 2.0.0); build metadata is kept but never ordered. */
export interface SemanticVersion {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
  build: string[];
}

const NUMERIC = '0|[1-9]\\d*';
const PRE_ID = `(?:${NUMERIC}|\\d*[a-zA-Z-][0-9a-zA-Z-]*)`;
const SEMVER_PATTERN = new RegExp(
  `^(${NUMERIC})\\.(${NUMERIC})\\.(${NUMERIC})` + `(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?` + `(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$`,
);

/** The parsed version, or undefined when `text` is not a semantic version. */
export function parseSemver(text: unknown): SemanticVersion | undefined {
  if (typeof text !== 'string' || text.length > 256) return undefined;
  const match = SEMVER_PATTERN.exec(text);
  if (!match) return undefined;
  const parts = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!parts.every(Number.isSafeInteger)) return undefined;
  return {
    major: parts[0],
    minor: parts[1],
    patch: parts[2],
    prerelease: match[4] ? match[4].split('.') : [],
    build: match[5] ? match[5].split('.') : [],
  };
}

export function isSemver(text: unknown): text is string {
  return parseSemver(text) !== undefined;
}

/** Semver precedence: negative when a < b, 0 when equal in precedence, positive when a > b. */
export function compareSemver(a: SemanticVersion, b: SemanticVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePrerelease(a.prerelease, b.prerelease);
}

function comparePrerelease(a: string[], b: string[]): number {
  // A version without pre-release ranks above any pre-release of the same core.
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareIdentifier(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function compareIdentifier(a: string, b: string): number {
  const aNumeric = /^\d+$/.test(a);
  const bNumeric = /^\d+$/.test(b);
  if (aNumeric && bNumeric) return Number(a) - Number(b);
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
