import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { GlobalOptions } from './program';

/** Why the backend cannot be reached; the CLI exits 3 with this message. */
export class BackendUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendUnreachableError';
  }
}

export interface BackendAddress {
  url: string;
  token: string;
  /** The pid recorded in backend.json when the URL came from there. */
  pid?: number;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * CONTRACT §9: the backend is found by flags, then `TOOLPORT_URL` / `TOOLPORT_ADMIN_TOKEN`,
 * then `<data-dir>/backend.json` and `<data-dir>/admin.token`.
 */
export function locateBackend(global: GlobalOptions, env: NodeJS.ProcessEnv): BackendAddress {
  const dataDir = resolve(global.dataDir);
  let url = global.url ?? env.TOOLPORT_URL;
  let pid: number | undefined;
  if (!url) {
    const raw = readText(join(dataDir, 'backend.json'));
    if (!raw) throw new BackendUnreachableError(`no backend is running for ${dataDir} (no backend.json); start one with: toolport serve --data-dir ${global.dataDir}`);
    try {
      const info = JSON.parse(raw) as { url?: unknown; pid?: unknown };
      if (typeof info.url !== 'string') throw new Error('no url');
      url = info.url;
      pid = typeof info.pid === 'number' ? info.pid : undefined;
    } catch {
      throw new BackendUnreachableError(`${join(dataDir, 'backend.json')} is unreadable`);
    }
    if (pid !== undefined && !isAlive(pid)) {
      throw new BackendUnreachableError(`${join(dataDir, 'backend.json')} is stale: the backend with pid ${pid} is not running`);
    }
  }
  const token = global.token ?? env.TOOLPORT_ADMIN_TOKEN ?? readText(join(dataDir, 'admin.token'));
  if (!token) throw new BackendUnreachableError(`no admin token: pass --token, set TOOLPORT_ADMIN_TOKEN, or use the data dir of the backend (${dataDir})`);
  return { url, token, pid };
}
