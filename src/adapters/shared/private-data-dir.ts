import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolders } from './make-folders';

/** The data dir belongs to someone else, or is not a directory: serve refuses to use it. */
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

/**
 * The data dir holds the store (session token verifiers, sealed secrets), the admin token and
 * every plugin's files: only the backend's user may open it. It is created 0700; one that
 * exists is tightened to 0700 (and the files directly inside it to owner-only) when it is
 * looser, and refused when another user owns it, since that user could read or replace what
 * the backend keeps there. Files below are created owner-only by the backend (and serve's
 * umask 077), and cannot be reached through the 0700 folder in any case.
 */
export function makeDataDirPrivate(dataDir: string, uid: number = process.getuid?.() ?? -1): Tightened[] {
  try {
    makeFolders(dataDir, 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new DataDirNotPrivateError(`data dir ${dataDir} is not a directory`);
    throw new DataDirNotPrivateError(`data dir ${dataDir} cannot be created (${code ?? 'unknown error'})`);
  }
  const stat = statSync(dataDir);
  if (!stat.isDirectory()) throw new DataDirNotPrivateError(`data dir ${dataDir} is not a directory`);
  if (uid >= 0 && stat.uid !== uid) {
    throw new DataDirNotPrivateError(
      `data dir ${dataDir} belongs to uid ${stat.uid}, not to uid ${uid} that runs toolport serve; ` + 'run serve as its owner or choose another --data-dir',
    );
  }
  const tightened: Tightened[] = [];
  tighten(dataDir, stat.mode, 0o700, tightened);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    const path = join(dataDir, entry.name);
    const mode = statSync(path).mode;
    tighten(path, mode, entry.isDirectory() ? 0o700 : mode & 0o700, tightened);
  }
  return tightened;
}

function tighten(path: string, mode: number, wanted: number, tightened: Tightened[]): void {
  if ((mode & 0o077) === 0) return;
  chmodSync(path, wanted);
  tightened.push({ path, mode: mode & 0o7777 });
}
