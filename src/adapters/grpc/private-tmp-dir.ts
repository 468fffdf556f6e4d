import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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

/**
 * Makes a fresh folder only the backend's user can open (mode 0700, as mkdtemp creates it)
 * for one plugin start's TMPDIR, under `root` (itself tightened to 0700). go-plugin plugins
 * put their unix socket there, so when `root` is so deep that a socket path would reach 100
 * bytes, the folder is made under the system temp folder instead, just as private.
 */
export function makePrivateTmpDir(root: string): PrivateTmpDir {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  chmodSync(root, 0o700);
  let path = mkdtempSync(join(root, 't'));
  let outsideRoot = false;
  if (Buffer.byteLength(path) + SOCKET_NAME_ROOM > MAX_SOCKET_PATH_BYTES) {
    rmSync(path, { recursive: true, force: true });
    path = mkdtempSync(join(tmpdir(), 'toolport-'));
    outsideRoot = true;
  }
  return { path, outsideRoot, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Removes every start's TMPDIR under `root` (left by a backend that was killed). */
export function removeTmpDirs(root: string): void {
  rmSync(root, { recursive: true, force: true });
}
