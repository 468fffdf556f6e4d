import path from 'node:path';

/**
 * Rules on the paths inside a package, shared by the tarball and directory readers.
 * Each returns a message saying what is wrong, or null. Paths are POSIX, relative to the
 * package root, as a tar header or a directory walk gives them.
 */

/** `./a/b/` → `a/b`; the root itself → ''. */
export function normalizeEntryPath(raw: string): string {
  return raw
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

function isAbsolute(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[a-zA-Z]:/.test(p);
}

function hasParentSegment(p: string): boolean {
  return p.split(/[\\/]/).includes('..');
}

export function entryPathProblem(raw: string): string | null {
  if (isAbsolute(raw)) return 'absolute paths are not allowed in a package';
  if (hasParentSegment(raw)) return 'paths with ".." are not allowed in a package';
  return null;
}

/** A symbolic link at `entryPath` (normalized) pointing at `target`. */
export function symlinkProblem(entryPath: string, target: string): string | null {
  if (target === '') return 'symbolic link with an empty target';
  if (isAbsolute(target)) return `symbolic link to the absolute path "${target}" leaves the package`;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(entryPath), target));
  if (resolved === '..' || resolved.startsWith('../')) return `symbolic link to "${target}" leaves the package`;
  return null;
}

/** A hard link's target is a path from the package root; it never needs "..". */
export function hardlinkProblem(target: string): string | null {
  if (isAbsolute(target) || hasParentSegment(target)) return `hard link to "${target}" leaves the package`;
  if (normalizeEntryPath(target) === '') return 'hard link to the package root';
  return null;
}

/** The first proper ancestor of `entryPath` that is one of `links`, if any. */
export function ancestorIn(entryPath: string, links: ReadonlySet<string>): string | undefined {
  const parts = entryPath.split('/');
  for (let i = 1; i < parts.length; i += 1) {
    const prefix = parts.slice(0, i).join('/');
    if (links.has(prefix)) return prefix;
  }
  return undefined;
}
