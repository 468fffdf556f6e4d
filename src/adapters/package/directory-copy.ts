import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { InvalidPackageError, type Violation } from '../../domain/errors';
import { PACKAGE_PATH, type PackageLimits } from './package-limits';
import { symlinkProblem } from './package-paths';
import { copyBounded } from './staged-file';
import { type TreeEntry, walkTree } from './package-tree';

function sizeViolation(limits: PackageLimits): Violation {
  return { path: PACKAGE_PATH, message: `the package is larger than ${limits.unpackedBytes} bytes unpacked` };
}

/** Checks the whole folder before anything is copied: entry kinds, links, counts and sizes. */
async function inspectDirectory(entries: TreeEntry[], limits: PackageLimits): Promise<void> {
  const violations: Violation[] = [];
  if (entries.length > limits.entries) violations.push({ path: PACKAGE_PATH, message: `the package has more than ${limits.entries} entries` });
  let bytes = 0;
  for (const entry of entries) {
    if (entry.kind === 'other') violations.push({ path: entry.relative, message: 'unsupported entry type (only files, folders and links)' });
    if (entry.kind === 'file') bytes += (await fs.lstat(entry.absolute)).size;
    if (entry.kind === 'symlink') {
      const problem = symlinkProblem(entry.relative, await fs.readlink(entry.absolute));
      if (problem) violations.push({ path: entry.relative, message: problem });
    }
  }
  if (bytes > limits.unpackedBytes) violations.push(sizeViolation(limits));
  if (violations.length > 0) throw new InvalidPackageError(violations);
}

/**
 * Copies one file of the package, opened without following a link: a file swapped for a link
 * after the walk is refused rather than read through. Answers the bytes copied.
 */
async function copyOneFile(entry: TreeEntry, target: string, room: number, limits: PackageLimits): Promise<number> {
  let input: fs.FileHandle;
  try {
    input = await fs.open(entry.absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new InvalidPackageError([{ path: entry.relative, message: 'changed while it was being copied (no longer a file)' }]);
  }
  try {
    if (!(await input.stat()).isFile())
      throw new InvalidPackageError([{ path: entry.relative, message: 'changed while it was being copied (no longer a file)' }]);
    const output = await fs.open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const copied = await copyBounded(input, output, room, () => new InvalidPackageError([sizeViolation(limits)]));
      await output.chmod((await input.stat()).mode & 0o755);
      return copied;
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/**
 * Copies a package folder into `dest` (a fresh staging folder), refusing it before copying
 * when it breaks a rule, and judging again what is actually copied (bytes counted, links read
 * once and checked, files opened without following links) in case it changes meanwhile.
 * Everything after reads the copy.
 */
export async function copyPackageDirectory(source: string, dest: string, limits: PackageLimits): Promise<void> {
  const entries = await walkTree(source);
  await inspectDirectory(entries, limits);
  let copied = 0;
  for (const entry of entries) {
    const target = path.join(dest, entry.relative);
    if (entry.kind === 'directory') await fs.mkdir(target);
    if (entry.kind === 'symlink') {
      const link = await fs.readlink(entry.absolute);
      const problem = symlinkProblem(entry.relative, link);
      if (problem) throw new InvalidPackageError([{ path: entry.relative, message: problem }]);
      await fs.symlink(link, target);
    }
    if (entry.kind === 'file') copied += await copyOneFile(entry, target, limits.unpackedBytes - copied, limits);
  }
}
