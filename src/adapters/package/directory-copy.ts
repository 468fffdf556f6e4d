import fs from 'node:fs/promises';
import path from 'node:path';
import { InvalidPackageError, type Violation } from '../../domain/errors';
import { PACKAGE_PATH, type PackageLimits } from './package-limits';
import { symlinkProblem } from './package-paths';
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
 * Copies a package folder into `dest` (a fresh staging folder), refusing it before copying
 * when it breaks a rule, and counting the bytes actually copied in case it grows meanwhile.
 */
export async function copyPackageDirectory(source: string, dest: string, limits: PackageLimits): Promise<void> {
  const entries = await walkTree(source);
  await inspectDirectory(entries, limits);
  let copied = 0;
  for (const entry of entries) {
    const target = path.join(dest, entry.relative);
    if (entry.kind === 'directory') await fs.mkdir(target);
    if (entry.kind === 'symlink') await fs.symlink(await fs.readlink(entry.absolute), target);
    if (entry.kind === 'file') {
      await fs.copyFile(entry.absolute, target);
      copied += (await fs.lstat(target)).size;
      if (copied > limits.unpackedBytes) throw new InvalidPackageError([sizeViolation(limits)]);
    }
  }
}
