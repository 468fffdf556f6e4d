import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, type ReadEntry, Unpack } from 'tar';

type WarnData = Record<string, unknown>;
import { InvalidPackageError, type Violation } from '../../domain/errors';
import { PACKAGE_PATH, type PackageLimits } from './package-limits';
import { isInside } from './package-tree';
import { TarEntryRules } from './tar-entry-rules';

/** A tar warning as a violation, its path relative to the package (tar reports absolute ones). */
function warningViolation(message: string, data: WarnData, dest?: string): Violation {
  const entryPath = data.path ?? (data.entry as { path?: unknown } | undefined)?.path;
  let where = typeof entryPath === 'string' ? entryPath : PACKAGE_PATH;
  if (dest !== undefined && path.isAbsolute(where) && isInside(dest, where)) where = path.relative(dest, where) || PACKAGE_PATH;
  return { path: where, message: `archive refused: ${message}` };
}

/**
 * Pass one: reads every header without writing anything, and hashes the file as it goes.
 * Stops reading at once when a size cap is passed, so a bomb costs nothing to refuse.
 * Throws InvalidPackageError listing every problem; returns the file's SHA-256 otherwise.
 */
export async function inspectTarball(file: string, limits: PackageLimits): Promise<string> {
  const rules = new TarEntryRules(limits);
  const hash = createHash('sha256');
  const warnings: Violation[] = [];
  await new Promise<void>((resolve, reject) => {
    const input = fs.createReadStream(file);
    const parser = new Parser({
      onwarn: (_code, message, data) => warnings.push(warningViolation(message, data)),
      onReadEntry: (entry: ReadEntry) => {
        rules.admit(entry);
        entry.resume();
        if (rules.exceeded) {
          input.destroy();
          resolve();
        }
      },
    });
    input.on('data', (chunk) => hash.update(chunk));
    input.on('error', reject);
    parser.on('error', (error: Error) => (rules.exceeded ? resolve() : reject(error)));
    parser.on('end', () => resolve());
    input.pipe(parser);
  }).catch((error: Error) => {
    warnings.push(warningViolation(error.message, {}));
  });
  const violations = [...rules.finish(), ...warnings];
  if (violations.length > 0) throw new InvalidPackageError(violations);
  return hash.digest('hex');
}

/**
 * Pass two: extracts into `dest` (a fresh staging folder) under the same rules, in case the
 * file changed since pass one. A refused entry, and every entry after it, is skipped rather
 * than aborting, so when this settles no write is still in flight and `dest` can be removed.
 */
export async function extractTarball(file: string, dest: string, limits: PackageLimits): Promise<void> {
  const rules = new TarEntryRules(limits);
  const warnings: Violation[] = [];
  await new Promise<void>((resolve, reject) => {
    const unpack = new Unpack({
      cwd: dest,
      preserveOwner: false,
      noMtime: true,
      filter: (_path, entry) => rules.admit(entry as ReadEntry),
      onwarn: (_code, message, data) => warnings.push(warningViolation(message, data, dest)),
    });
    const input = fs.createReadStream(file);
    input.on('error', reject);
    unpack.on('error', reject);
    unpack.on('close', () => resolve());
    input.pipe(unpack);
  }).catch((error: Error) => {
    warnings.push(warningViolation(error.message, {}));
  });
  const violations = [...rules.finish(), ...warnings];
  if (violations.length > 0) throw new InvalidPackageError(violations);
}
