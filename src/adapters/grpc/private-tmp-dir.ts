import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bytes a socket name inside TMPDIR may take: go-plugin's is `/plugin` and 9 or 10 digits. */
const SOCKET_NAME_ROOM = 20;
/** A unix socket path must stay under 100 bytes (docs/plugin-protocol.md §4; the kernel's limit is 108). */
const MAX_SOCKET_PATH_BYTES = 99;

/** One plugin start's TMPDIR, and whether it had to leave `root` to keep socket paths short. */
export interface PrivateTmpDir {
  path: string;
  outsideRoot: boolean;
  remove(): void;
}

/** Where each start's TMPDIR goes, and what to use when that would make socket paths too long. */
export interface TmpDirPlace {
  /** The folder's mode: 0700, or 0711 when plugin uids must pass through it to their own. */
  mode?: number;
  /** The short folder to use instead (a ShortRunFolder's); without it, the system temp folder. */
  shortRoot?: () => string;
}

/**
 * Makes a fresh folder only the backend's user can open (mode 0700, as mkdtemp creates it)
 * for one plugin start's TMPDIR, under `root` (itself made `place.mode`, 0700 by default).
 * go-plugin plugins put their unix socket there, so when `root` is so deep that a socket path
 * would reach 100 bytes, the folder is made under the short run folder instead, just as private.
 */
export function makePrivateTmpDir(root: string, place: TmpDirPlace = {}): PrivateTmpDir {
  const mode = place.mode ?? 0o700;
  mkdirSync(root, { recursive: true, mode });
  setFolderMode(root, mode);
  let path = mkdtempSync(join(root, 't'));
  let outsideRoot = false;
  if (Buffer.byteLength(path) + SOCKET_NAME_ROOM > MAX_SOCKET_PATH_BYTES) {
    rmSync(path, { recursive: true, force: true });
    path = place.shortRoot ? mkdtempSync(join(place.shortRoot(), 't')) : mkdtempSync(join(tmpdir(), 'toolport-'));
    outsideRoot = true;
  }
  return { path, outsideRoot, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Removes every start's TMPDIR under `root` (left by a backend that was killed). */
export function removeTmpDirs(root: string): void {
  rmSync(root, { recursive: true, force: true });
}

/**
 * The backend's short run folder (docs/operations.md §4): `/tmp/toolport-<uid>-<8 hex>`, at
 * most 40 bytes, owned by the backend's user and made `mode` (0700; 0711 when plugin uids pass
 * through it), for the TMPDIRs whose socket paths under the data dir would reach 100 bytes.
 * Its path is recorded in `recordFile` (in the data dir), so every start of the backend uses
 * the same one and clears what a killed one left there. A recorded path that is no longer a
 * folder of the backend's own (removed by a /tmp cleaner, or replaced by someone else) is
 * never used: a new one is made and recorded.
 */
export class ShortRunFolder {
  private current: string | undefined;

  constructor(
    private readonly recordFile: string,
    private readonly mode = 0o700,
    private readonly base = '/tmp',
  ) {}

  /** The folder, checked at each call and made (and recorded) when it is not there. */
  path(): string {
    if (this.current !== undefined && this.isOwnFolder(this.current)) return this.current;
    const recorded = this.recorded();
    this.current = recorded !== undefined && this.isOwnFolder(recorded) ? recorded : this.make();
    return this.current;
  }

  /** Empties the recorded folder of what an earlier backend's starts left; nothing when none is recorded. */
  removeLeftovers(): void {
    const recorded = this.recorded();
    if (recorded === undefined || !this.isOwnFolder(recorded)) return;
    for (const name of readdirSync(recorded)) rmSync(join(recorded, name), { recursive: true, force: true });
  }

  /** Removes the recorded folder, when it is the backend's own (for a backend that goes for good, or a test). */
  remove(): void {
    const recorded = this.recorded();
    if (recorded !== undefined && this.isOwnFolder(recorded)) rmSync(recorded, { recursive: true, force: true });
  }

  private recorded(): string | undefined {
    try {
      const text = readFileSync(this.recordFile, 'utf8').trim();
      return text.startsWith(`${this.base}/toolport-`) ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /** A real folder (not a link) of the backend's user; its mode set as wanted. */
  private isOwnFolder(path: string): boolean {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || stat.uid !== (process.getuid?.() ?? stat.uid)) return false;
    setFolderMode(path, this.mode);
    return true;
  }

  private make(): string {
    const uid = process.getuid?.() ?? 0;
    for (let attempt = 0; ; attempt += 1) {
      const path = join(this.base, `toolport-${uid}-${randomBytes(4).toString('hex')}`);
      try {
        mkdirSync(path, { mode: 0o700 });
      } catch (error) {
        // Taken (by anyone, a link included): another name.
        if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 8) continue;
        throw error;
      }
      setFolderMode(path, this.mode);
      const next = `${this.recordFile}.next`;
      writeFileSync(next, `${path}\n`, { mode: 0o600 });
      renameSync(next, this.recordFile);
      return path;
    }
  }
}

/** Sets a folder's mode through a descriptor opened without following a link. */
function setFolderMode(folder: string, mode: number): void {
  const fd = openSync(folder, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  try {
    if ((fstatSync(fd).mode & 0o7777) !== mode) fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}
