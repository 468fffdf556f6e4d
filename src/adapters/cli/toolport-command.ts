import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { toolportBin } from './toolport-bin';

/**
 * How a person runs this Toolport from a shell, for what the CLI prints (README.md, "Getting
 * toolport on your PATH"): `toolport` when that name on `PATH` is this very `bin/toolport` (after
 * `npm link`, or `npm install -g` of the package), else the absolute path of this
 * `bin/toolport`, which works from any folder.
 */
export function toolportCommand(env: NodeJS.ProcessEnv, bin: string = toolportBin()): string {
  const own = realOrSelf(bin);
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, 'toolport');
    if (!isExecutable(candidate)) continue;
    // The first `toolport` on PATH is the one a shell runs: it must be this one.
    return realOrSelf(candidate) === own ? 'toolport' : shellWord(bin);
  }
  return shellWord(bin);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
