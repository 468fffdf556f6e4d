import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, parse, resolve, sep } from 'node:path';
import { makeFolders } from './make-folders';

/** The data dir belongs to someone else, is reached through another user's link or folder, or is not a directory: serve refuses it. */
export class DataDirNotPrivateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirNotPrivateError';
  }
}

/** What was loosened before serve made it private, for one warning in the log. */
export interface Tightened {
  path: string;
  mode: number;
}

/** The data dir serve uses: its real path, resolved once, and what was tightened in it. */
export interface PrivateDataDir {
  dataDir: string;
  tightened: Tightened[];
}

const STICKY = 0o1000;
/** Search (x) for group and others: they may pass through a folder, never list or change it. */
const TRAVERSE = 0o011;

/** `/`, `/a`, `/a/b`, … up to `path` itself (absolute). */
function prefixes(path: string): string[] {
  const { root } = parse(path);
  const parts = path.slice(root.length).split(sep).filter(Boolean);
  return [root, ...parts.map((_, i) => root + parts.slice(0, i + 1).join(sep))];
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** A user other than `uid` and root: whoever that is could swap what the path leads to. */
const foreign = (owner: number, uid: number): boolean => uid >= 0 && owner !== uid && owner !== 0;

/**
 * Every symbolic link on the way to `path` (as written) must be the backend user's or root's:
 * another user's link could be pointed elsewhere at any time.
 */
function checkLinks(path: string, uid: number): void {
  for (const at of prefixes(path)) {
    const stat = lstatOrUndefined(at);
    if (!stat) return;
    if (stat.isSymbolicLink() && foreign(stat.uid, uid)) {
      throw new DataDirNotPrivateError(
        `data dir ${path}: ${at} is a symbolic link owned by uid ${stat.uid}, another user; give the real path or choose another --data-dir`,
      );
    }
  }
}

/**
 * OpenSSH's StrictModes walk over a real path: each folder from `/` down to `real` (`real`
 * itself only `withLast`, when folders are to be created in it) must belong
 * to the backend user or root, and none may be writable by every user unless it has the sticky
 * bit (as `/tmp`): otherwise another user could rename the data dir away and put their own in
 * its place while serve runs.
 */
function checkAncestors(path: string, real: string, uid: number, withLast = false): void {
  for (const at of prefixes(real)) {
    const stat = statSync(at);
    const above = withLast || at !== real;
    if (foreign(stat.uid, uid) && above) {
      throw new DataDirNotPrivateError(
        `data dir ${path}: its folder ${at} belongs to uid ${stat.uid}, another user, who could replace it; choose another --data-dir`,
      );
    }
    if (above && (stat.mode & 0o002) !== 0 && (stat.mode & STICKY) === 0) {
      throw new DataDirNotPrivateError(
        `data dir ${path}: its folder ${at} is writable by every user and has no sticky bit, so another user could replace it; choose another --data-dir`,
      );
    }
  }
}

/** The deepest part of `path` that exists (the folder new ones would be created in). */
function deepestExisting(path: string): string {
  let at = path;
  while (lstatOrUndefined(at) === undefined && dirname(at) !== at) at = dirname(at);
  return at;
}

/**
 * The data dir holds the store (session token verifiers, sealed secrets), the admin token and
 * every plugin's files: only the backend's user may open it (docs/operations.md §4). Its path is
 * checked before anything is created or changed (no other user's symbolic link on the way, no
 * folder above it another user could replace), resolved once to its real path, which is what
 * serve uses from then on. It is created 0700; one that exists is tightened to 0700 (and the
 * files directly inside it to owner-only) when it is looser, each opened without following a
 * link, and refused when another user owns it or an entry directly inside it, since that user
 * could read or replace what the backend keeps there.
 */
export function openPrivateDataDir(path: string, uid: number = process.getuid?.() ?? -1, options: { traversable?: readonly string[] } = {}): PrivateDataDir {
  const wanted = resolve(path);
  checkLinks(wanted, uid);
  const existing = deepestExisting(wanted);
  if (existing !== wanted) {
    // The folder the missing ones would be created in is checked as an ancestor too.
    checkAncestors(wanted, realpathSync(existing), uid, true);
  }
  try {
    makeFolders(wanted, 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new DataDirNotPrivateError(`data dir ${wanted} is not a directory`);
    throw new DataDirNotPrivateError(`data dir ${wanted} cannot be created (${code ?? 'unknown error'})`);
  }
  let dataDir: string;
  try {
    dataDir = realpathSync(wanted);
  } catch (error) {
    throw new DataDirNotPrivateError(`data dir ${wanted} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  checkAncestors(wanted, dataDir, uid);
  const stat = statSync(dataDir);
  if (!stat.isDirectory()) throw new DataDirNotPrivateError(`data dir ${wanted} is not a directory`);
  if (uid >= 0 && stat.uid !== uid) {
    throw new DataDirNotPrivateError(
      `data dir ${wanted} belongs to uid ${stat.uid}, not to uid ${uid} that runs toolport serve; ` + 'run serve as its owner or choose another --data-dir',
    );
  }
  const tightened: Tightened[] = [];
  const traversable = new Set(options.traversable ?? []);
  // Plugin uids pass through the data dir to `plugin-root/` only (docs/operations.md §4): 0711, no listing.
  const passable = traversable.size > 0 ? TRAVERSE : 0;
  tighten(dataDir, 'directory', uid, tightened, wanted, passable);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    const kind = entry.isDirectory() ? 'directory' : 'file';
    tighten(join(dataDir, entry.name), kind, uid, tightened, wanted, kind === 'directory' && traversable.has(entry.name) ? TRAVERSE : 0);
  }
  return { dataDir, tightened };
}

/** As openPrivateDataDir, answering what was tightened only (the data dir at `path` itself). */
export function makeDataDirPrivate(dataDir: string, uid: number = process.getuid?.() ?? -1): Tightened[] {
  return openPrivateDataDir(dataDir, uid).tightened;
}

/**
 * Tightens one entry through a descriptor opened without following a link: a link swapped in
 * meanwhile is never chmodded through. `allowed`: the bits of others it may keep (search only).
 */
function tighten(path: string, kind: 'directory' | 'file', uid: number, tightened: Tightened[], dataDir: string, allowed = 0): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (kind === 'directory' ? constants.O_DIRECTORY : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new DataDirNotPrivateError(`data dir ${dataDir}: ${path} cannot be opened to check it (${code ?? 'unknown error'})`);
  }
  try {
    const stat = fstatSync(fd);
    if (uid >= 0 && stat.uid !== uid) {
      throw new DataDirNotPrivateError(
        `data dir ${dataDir}: ${path} belongs to uid ${stat.uid}, not to uid ${uid} that runs toolport serve; remove it or choose another --data-dir`,
      );
    }
    if ((stat.mode & 0o077 & ~allowed) === 0) return;
    fchmodSync(fd, kind === 'directory' ? 0o700 | (stat.mode & allowed) : stat.mode & 0o700);
    tightened.push({ path, mode: stat.mode & 0o7777 });
  } finally {
    closeSync(fd);
  }
}
