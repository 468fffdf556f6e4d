import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Opens an installed version's tree to a plugin's own uid under a root backend: every folder
 * 0755, every file 0644 (0755 when its owner may run it). Links are neither followed nor
 * changed; the files stay root's, so the plugin can read but not alter them.
 */
export function readableByOthers(root: string): void {
  const stat = lstatSync(root);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o7777) !== 0o755) chmodSync(root, 0o755);
    for (const name of readdirSync(root)) readableByOthers(join(root, name));
    return;
  }
  if (!stat.isFile()) return;
  const wanted = stat.mode & 0o100 ? 0o755 : 0o644;
  if ((stat.mode & 0o7777) !== wanted) chmodSync(root, wanted);
}
