import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { getFileNameLowLevel, openPromise, type Entry, type ZipFile } from 'yauzl';
import { InvalidPackageError, type Violation } from '../../domain/errors';
import { PACKAGE_PATH, type PackageLimits } from './package-limits';
import { entryPathProblem, normalizeEntryPath } from './package-paths';

/** The first bytes of a zip archive (a local file header, or the end record of an empty one). */
export function isZipHead(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
/** The host system in `versionMadeBy` whose external attributes hold a Unix mode. */
const MADE_BY_UNIX = 3;

interface Planned {
  entry: Entry;
  /** Normalised, relative to the package root. */
  path: string;
  directory: boolean;
  /** The file's permission bits, kept (executables stay executable); never writable by others. */
  mode: number;
}

/** The Unix mode an entry carries, or undefined when the archive was made elsewhere. */
function unixMode(entry: Entry): number | undefined {
  if (entry.versionMadeBy >> 8 !== MADE_BY_UNIX) return undefined;
  const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
  return mode === 0 ? undefined : mode;
}

/**
 * Judges each entry of the central directory, before anything is written: a symbolic link or
 * any other special file, an absolute path, a `..` segment, a name twice (or a file that is also
 * a folder of another entry), an encrypted entry, a compression other than stored or deflate.
 * The entry count and the declared unpacked bytes are counted as the directory is read, and
 * reading stops at the first over a limit; each file's size is checked again as it is
 * inflated (yauzl's `validateEntrySizes`), so an entry cannot inflate past what it declared
 * (its file is then refused, and the staging folder removed).
 */
class ZipEntryRules {
  readonly violations: Violation[] = [];
  readonly planned: Planned[] = [];
  /** Each entry's path → whether it is a folder. */
  private readonly seen = new Map<string, boolean>();
  /** Every folder some entry lies in. */
  private readonly folders = new Set<string>();
  private bytes = 0;
  tooBig = false;

  constructor(private readonly limits: PackageLimits) {}

  admit(entry: Entry): void {
    let raw: string;
    try {
      raw = getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
    } catch {
      return this.refuse(PACKAGE_PATH, 'an entry name cannot be decoded');
    }
    if (raw.includes('\0')) return this.refuse(raw.replace(/\0/g, '\\0'), 'an entry name holds a NUL character');
    const problem = entryPathProblem(raw);
    if (problem) return this.refuse(raw, problem);
    const entryPath = normalizeEntryPath(raw);
    if (entryPath === '') return raw.endsWith('/') ? undefined : this.refuse(raw, 'an entry without a name');
    if (this.planned.length + 1 > this.limits.entries) return this.refuseAll(`the package has more than ${this.limits.entries} entries`);
    const mode = unixMode(entry);
    // Some writers (the MCPB CLI's among them) store only the permission bits: no type is a file or a folder by its name.
    const type = mode === undefined || (mode & S_IFMT) === 0 ? undefined : mode & S_IFMT;
    const directory = raw.endsWith('/') || type === S_IFDIR;
    if (type !== undefined && type !== S_IFREG && type !== S_IFDIR) {
      return this.refuse(raw, type === 0o120000 ? 'symbolic links are not allowed in a bundle' : 'only files and folders are allowed in a bundle');
    }
    if (entry.isEncrypted()) return this.refuse(raw, 'encrypted entries are not supported');
    if (!directory && entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      return this.refuse(raw, `compression method ${entry.compressionMethod} is not supported (only stored and deflate)`);
    }
    if (this.seen.has(entryPath)) return this.refuse(raw, 'the name appears twice in the archive');
    for (const ancestor of ancestorsOf(entryPath)) {
      if (this.seen.get(ancestor) === false) return this.refuse(raw, `"${ancestor}" is a file, not a folder`);
    }
    if (!directory && this.folders.has(entryPath)) return this.refuse(raw, 'is a file, but other entries are inside it');
    this.seen.set(entryPath, directory);
    for (const ancestor of ancestorsOf(entryPath)) this.folders.add(ancestor);
    if (!directory) {
      this.bytes += entry.uncompressedSize;
      if (this.bytes > this.limits.unpackedBytes) return this.refuseAll(`the package is larger than ${this.limits.unpackedBytes} bytes unpacked`);
    }
    this.planned.push({ entry, path: entryPath, directory, mode: directory ? 0o755 : ((mode ?? 0o644) & 0o755) | 0o600 });
  }

  private refuse(at: string, message: string): void {
    this.violations.push({ path: at, message });
  }

  private refuseAll(message: string): void {
    if (!this.tooBig) this.refuse(PACKAGE_PATH, message);
    this.tooBig = true;
  }
}

function ancestorsOf(entryPath: string): string[] {
  const parts = entryPath.split('/');
  return parts.slice(1).map((_part, index) => parts.slice(0, index + 1).join('/'));
}

function zipProblem(error: unknown): InvalidPackageError {
  if (error instanceof InvalidPackageError) return error;
  return new InvalidPackageError([{ path: PACKAGE_PATH, message: `the bundle is not a valid zip archive (${(error as Error).message})` }]);
}

/**
 * Unpacks the zip at `file` (the staged copy, hashed as it was made) into `dest`, a fresh
 * staging folder, under ZipEntryRules: every entry is judged first, and nothing is written
 * when any is refused. Files are created new (never through an existing path or link) with
 * their Unix permission bits. Throws InvalidPackageError listing every problem.
 */
export async function extractZip(file: string, dest: string, limits: PackageLimits): Promise<void> {
  let zip: ZipFile;
  try {
    zip = await openPromise(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (error) {
    throw zipProblem(error);
  }
  try {
    const rules = new ZipEntryRules(limits);
    try {
      for await (const entry of zip.eachEntry()) {
        rules.admit(entry);
        if (rules.tooBig) break;
      }
    } catch (error) {
      rules.violations.push(...zipProblem(error).violations);
    }
    if (rules.violations.length > 0) throw new InvalidPackageError(rules.violations);
    for (const planned of rules.planned) await writeEntry(zip, planned, dest);
  } finally {
    zip.close();
  }
}

async function writeEntry(zip: ZipFile, planned: Planned, dest: string): Promise<void> {
  const target = path.join(dest, ...planned.path.split('/'));
  if (planned.directory) {
    await fs.mkdir(target, { recursive: true, mode: planned.mode });
    return;
  }
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
  const output = await fs.open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, planned.mode);
  try {
    const input = await zip.openReadStreamPromise(planned.entry);
    await pipeline(input, output.createWriteStream());
  } catch (error) {
    if (error instanceof InvalidPackageError) throw error;
    // yauzl's own check: the inflated bytes are not the size the entry declares.
    throw new InvalidPackageError([{ path: planned.path, message: `cannot be unpacked: ${(error as Error).message}` }]);
  } finally {
    await output.close().catch(() => undefined);
  }
  // The mode given at creation went through the umask; the archive's bits are kept as they are.
  await fs.chmod(target, planned.mode);
}
