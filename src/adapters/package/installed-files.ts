import fs from 'node:fs/promises';
import { hashBuffer, sha256OfFile } from './file-sha256';
import { walkTree } from './package-tree';

/**
 * What one installed entry is: a file by the SHA-256 of its bytes, a symbolic link by its
 * target, anything else (a fifo, a socket) by its kind. Folders are not listed: their entries are.
 */
export type InstalledEntry = { sha256: string } | { link: string } | { other: true };

/** Every entry of an installed version folder by its POSIX path relative to the folder. */
export type InstalledFiles = Record<string, InstalledEntry>;

/** The seal's format, so a later change of it can tell an old one apart. */
const SEAL_FORMAT = 1;

/** Reads what is in `root` now (links are not followed). */
export async function readInstalledFiles(root: string): Promise<InstalledFiles> {
  const files: InstalledFiles = {};
  const buffer = hashBuffer();
  for (const entry of await walkTree(root)) {
    if (entry.kind === 'directory') continue;
    if (entry.kind === 'file') files[entry.relative] = { sha256: await sha256OfFile(entry.absolute, buffer, { followLinks: false }) };
    else if (entry.kind === 'symlink') files[entry.relative] = { link: await fs.readlink(entry.absolute) };
    else files[entry.relative] = { other: true };
  }
  return files;
}

function entryText(entry: InstalledEntry): string {
  if ('sha256' in entry) return `a file with sha256 ${entry.sha256}`;
  if ('link' in entry) return `a link to ${entry.link}`;
  return 'neither a file nor a link';
}

/**
 * The first difference between what was recorded and what is there, as a sentence naming the
 * file (paths compared in byte order, so the answer is the same on every run), or null.
 */
export function firstDifference(recorded: InstalledFiles, actual: InstalledFiles): string | null {
  const paths = [...new Set([...Object.keys(recorded), ...Object.keys(actual)])].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const path of paths) {
    const was = recorded[path];
    const now = actual[path];
    if (was === undefined) return `installed file "${path}" was added after install`;
    if (now === undefined) return `installed file "${path}" was removed after install`;
    if (entryText(was) !== entryText(now)) return `installed file "${path}" changed after install (it was ${entryText(was)}, it is ${entryText(now)})`;
  }
  return null;
}

/** The seal's text: the recorded entries, written once when the version is committed. */
export function sealText(pluginId: string, version: string, files: InstalledFiles): string {
  return `${JSON.stringify({ format: SEAL_FORMAT, plugin_id: pluginId, version, files }, null, 1)}\n`;
}

/** The recorded entries from a seal's text; throws on anything that is not one this code wrote. */
export function parseSeal(text: string, pluginId: string, version: string): InstalledFiles {
  const seal = JSON.parse(text) as { format?: unknown; plugin_id?: unknown; version?: unknown; files?: unknown };
  if (seal.format !== SEAL_FORMAT || seal.plugin_id !== pluginId || seal.version !== version || typeof seal.files !== 'object' || seal.files === null) {
    throw new Error(`it is not the record of ${pluginId}@${version}`);
  }
  return seal.files as InstalledFiles;
}
