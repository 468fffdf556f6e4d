import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** The environment variable naming the data dir when `--data-dir` is not given. */
export const DATA_DIR_ENV = 'TOOLPORT_DATA_DIR';
/** The folder name looked for in the current folder and its parents. */
export const PROJECT_DATA_DIR = '.toolport';

/** Where the data dir came from: the hint for a missing backend depends on it. */
export type DataDirSource = 'flag' | 'env' | 'found' | 'default';

export interface DataDirChoice {
  /** Absolute. */
  dir: string;
  source: DataDirSource;
}

export interface DiscoveryInput {
  /** `--data-dir` when given. */
  given?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The user's home, for the default (else `HOME`, else the system's answer). */
  home?: string;
}

/**
 * docs/cli.md, "Finding the data dir": `--data-dir`, else `TOOLPORT_DATA_DIR`, else the nearest
 * `.toolport/` folder in the current folder or one of its parents (as git finds `.git`), else
 * `${XDG_STATE_HOME:-~/.local/state}/toolport`. Reads the disk only to see which folders exist.
 */
export function discoverDataDir(input: DiscoveryInput): DataDirChoice {
  if (input.given !== undefined && input.given !== '') return { dir: resolve(input.cwd, input.given), source: 'flag' };
  const named = input.env[DATA_DIR_ENV];
  if (named) return { dir: resolve(input.cwd, named), source: 'env' };
  const found = nearestProjectDataDir(resolve(input.cwd));
  if (found) return { dir: found, source: 'found' };
  return { dir: defaultDataDir(input.env, input.home), source: 'default' };
}

/** The nearest `.toolport` folder at or above `from`, if any. */
export function nearestProjectDataDir(from: string): string | undefined {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, PROJECT_DATA_DIR);
    if (isFolder(candidate)) return candidate;
    if (dirname(folder) === folder) return undefined;
  }
}

/** `${XDG_STATE_HOME:-~/.local/state}/toolport`; a relative XDG_STATE_HOME is ignored, as the XDG spec says. */
export function defaultDataDir(env: NodeJS.ProcessEnv, home?: string): string {
  const state = env.XDG_STATE_HOME;
  if (state && isAbsolute(state)) return join(state, 'toolport');
  return join(home ?? (env.HOME || homedir()), '.local', 'state', 'toolport');
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
