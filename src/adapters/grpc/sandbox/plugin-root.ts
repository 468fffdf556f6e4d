import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The only folder of the data dir that plugin uids may pass through (docs/operations.md §4). */
export const PLUGIN_ROOT = 'plugin-root';
/** What moves under `plugin-root/` for a root backend: installed versions and the plugins' own data. */
const MOVED = ['plugins', 'plugin-data'] as const;

/** Where the plugins' folders are for one backend. */
export interface PluginFolders {
  /** Holds `plugins/<id>/<version>/` and `plugin-data/<id>/`: the data dir, or `<data-dir>/plugin-root`. */
  root: string;
  /** Where each start's private TMPDIR is made. */
  tmpRoot: string;
  /** The mode of `tmpRoot` (and of a short run folder): 0711 when plugin uids must pass, else 0700. */
  tmpMode: number;
}

/**
 * The plugin folders' layout (docs/operations.md §4). With `pluginUids` (a root backend that
 * runs each plugin as a uid of its own) they live under `<data-dir>/plugin-root/`, the data
 * dir made 0711 and each folder on the way to a plugin's own 0711 (root-owned: a plugin uid
 * may pass, never list or change), so a plugin uid reaches its own folders and nothing else
 * of the data dir. Without, they are directly in the data dir, private as before. What an
 * earlier start left in the other layout is moved over, when nothing is in the way. Every
 * mode is set through a descriptor opened without following a link.
 */
export function openPluginFolders(dataDir: string, pluginUids: boolean): PluginFolders {
  const pluginRoot = join(dataDir, PLUGIN_ROOT);
  if (!pluginUids) {
    for (const name of MOVED) moveIfFree(join(pluginRoot, name), join(dataDir, name));
    // Only what a killed backend's starts left (their processes are ended by the group sweep).
    rmSync(join(pluginRoot, 'plugin-tmp'), { recursive: true, force: true });
    removeIfEmpty(pluginRoot);
    return { root: dataDir, tmpRoot: join(dataDir, 'plugin-tmp'), tmpMode: 0o700 };
  }
  setMode(dataDir, 0o711);
  makeTraversable(pluginRoot);
  for (const name of MOVED) {
    moveIfFree(join(dataDir, name), join(pluginRoot, name));
    makeTraversable(join(pluginRoot, name));
  }
  rmSync(join(dataDir, 'plugin-tmp'), { recursive: true, force: true });
  return { root: pluginRoot, tmpRoot: join(pluginRoot, 'plugin-tmp'), tmpMode: 0o711 };
}

/** A root-owned folder others may pass through: made 0711 if absent, refused if it is a link or not a folder. */
export function makeTraversable(folder: string): void {
  try {
    mkdirSync(folder, { mode: 0o711 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  setMode(folder, 0o711);
}

/**
 * Lets others pass through `folder` (adds search for group and others, nothing else, and only
 * when missing): the folder above an installed version. Never narrows what it had.
 */
export function letOthersPass(folder: string): void {
  withFolder(folder, (fd) => {
    const mode = fstatSync(fd).mode & 0o7777;
    if ((mode & 0o011) !== 0o011) fchmodSync(fd, mode | 0o011);
  });
}

function setMode(folder: string, mode: number): void {
  withFolder(folder, (fd) => {
    if ((fstatSync(fd).mode & 0o7777) !== mode) fchmodSync(fd, mode);
  });
}

/** Runs `use` on a descriptor of `folder` opened without following a link; refuses what is not a folder. */
function withFolder(folder: string, use: (fd: number) => void): void {
  let fd: number;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what = lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink() ? 'a symbolic link' : (code ?? 'unknown error');
    throw new Error(`${folder} is not a folder the backend can use (${what})`);
  }
  try {
    use(fd);
  } finally {
    closeSync(fd);
  }
}

function moveIfFree(from: string, to: string): void {
  const source = lstatSync(from, { throwIfNoEntry: false });
  if (!source?.isDirectory() || lstatSync(to, { throwIfNoEntry: false })) return;
  renameSync(from, to);
}

function removeIfEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // absent, or holding something: left as it is
  }
}
