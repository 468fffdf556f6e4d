import fs from 'node:fs/promises';
import type { Violation } from '../../domain/errors';
import { isInside, walkTree } from './package-tree';

/**
 * Checks every symbolic link of an unpacked package on the real file system: each must
 * resolve, and to something inside the package. The header rules already refuse links that
 * leave it on their own; this catches chains (a link through another link) they cannot see.
 */
export async function linksLeaving(root: string): Promise<Violation[]> {
  const realRoot = await fs.realpath(root);
  const violations: Violation[] = [];
  for (const entry of await walkTree(root)) {
    if (entry.kind !== 'symlink') continue;
    const target = await fs.readlink(entry.absolute);
    let resolved: string;
    try {
      resolved = await fs.realpath(entry.absolute);
    } catch {
      violations.push({ path: entry.relative, message: `symbolic link to "${target}" points at nothing in the package` });
      continue;
    }
    if (!isInside(realRoot, resolved)) {
      violations.push({ path: entry.relative, message: `symbolic link to "${target}" leaves the package` });
    }
  }
  return violations;
}
