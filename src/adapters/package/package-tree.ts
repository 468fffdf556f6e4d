import fs from 'node:fs/promises';
import path from 'node:path';

/** One entry of a folder tree, with its POSIX path relative to the root. */
export interface TreeEntry {
  relative: string;
  absolute: string;
  kind: 'directory' | 'file' | 'symlink' | 'other';
}

/** Every entry under `root` (not following links), parents before children. */
export async function walkTree(root: string): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  async function visit(dir: string, prefix: string): Promise<void> {
    const children = await fs.readdir(dir, { withFileTypes: true });
    for (const child of children) {
      const relative = prefix === '' ? child.name : `${prefix}/${child.name}`;
      const absolute = path.join(dir, child.name);
      const kind = child.isDirectory() ? 'directory' : child.isFile() ? 'file' : child.isSymbolicLink() ? 'symlink' : 'other';
      entries.push({ relative, absolute, kind });
      if (kind === 'directory') await visit(absolute, relative);
    }
  }
  await visit(root, '');
  return entries;
}

/** True when `candidate` is `root` or lies beneath it. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
