import { dirname } from 'node:path';
import { existsSync, mkdirSync } from 'node:fs';

/**
 * `mkdir -p` one folder at a time (each `mode`, before the umask): Node's recursive mkdir spins
 * for ever where a parent exists but refuses children with ENOENT (under /proc), which would
 * hang the command instead of refusing. Throws the first folder's error as mkdir does.
 */
export function makeFolders(path: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let at = path; !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing) mkdirSync(folder, { mode });
}
