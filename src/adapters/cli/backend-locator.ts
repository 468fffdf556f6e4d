import { resolve } from 'node:path';
import { readAdminToken } from '../shared/admin-token-file';
import { backendInfoPath, isRecordedBackendRunning, loadBackendInfo } from '../shared/backend-info-file';
import { UsageError } from './exit-codes';
import { isHttpUrl } from './http-url';
import { toolportCommand } from './toolport-command';
import type { DataDirSource } from './data-dir-discovery';
import type { GlobalOptions } from './program';

/** Why the backend cannot be reached; the CLI exits 3 with this message. */
export class BackendUnreachableError extends Error {
  /** `body`: the backend's own error answer when it gave one (a 401), for `--json`. */
  constructor(
    message: string,
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = 'BackendUnreachableError';
  }
}

export interface BackendAddress {
  url: string;
  token: string;
  /** The pid recorded in backend.json when the URL came from there. */
  pid?: number;
  /** The instance id recorded in backend.json: the backend must say the same when it signs the CLI in. */
  instanceId?: string;
}

/**
 * docs/cli.md: the backend is found by flags, then `TOOLPORT_URL` / `TOOLPORT_ADMIN_TOKEN`,
 * then `<data-dir>/backend.json` and `<data-dir>/admin.token`.
 */
export function locateBackend(global: GlobalOptions, env: NodeJS.ProcessEnv): BackendAddress {
  const dataDir = resolve(global.dataDir);
  let url = global.url ?? env.TOOLPORT_URL;
  let pid: number | undefined;
  let instanceId: string | undefined;
  if (url) checkUrl(url, global.url !== undefined ? '--url' : 'TOOLPORT_URL');
  else {
    const info = loadBackendInfo(dataDir);
    if (info === 'missing') throw new BackendUnreachableError(noBackendMessage(dataDir, global.dataDirSource, toolportCommand(env)));
    if (info === 'unreadable') throw new BackendUnreachableError(`${backendInfoPath(dataDir)} is unreadable`);
    // A live pid is not enough: it may be another process's now. Its start time must match too.
    if (!isRecordedBackendRunning(info)) {
      throw new BackendUnreachableError(`${backendInfoPath(dataDir)} is stale: the backend with pid ${info.pid} is not running`);
    }
    url = info.url;
    pid = info.pid;
    instanceId = info.instance_id;
  }
  const token = global.token ?? env.TOOLPORT_ADMIN_TOKEN ?? readAdminToken(dataDir);
  if (!token) throw new BackendUnreachableError(`no admin token: pass --token, set TOOLPORT_ADMIN_TOKEN, or use the data dir of the backend (${dataDir})`);
  return { url, token, pid, ...(instanceId ? { instanceId } : {}) };
}

const CHOSEN: Record<DataDirSource, string> = {
  flag: '--data-dir',
  env: 'TOOLPORT_DATA_DIR',
  found: 'the nearest .toolport/ in this folder or above',
  default: 'the default: no TOOLPORT_DATA_DIR and no .toolport/ in this folder or above',
};

/**
 * What to do when the data dir holds no backend.json (docs/cli.md, "Finding the data dir"): a
 * `serve` found the same way needs no `--data-dir`, and a backend already running elsewhere is
 * reached by pointing at its data dir, not by starting a second one on its port.
 */
export function noBackendMessage(dataDir: string, source: DataDirSource, toolport = 'toolport'): string {
  const serve = source === 'flag' ? `${toolport} serve --data-dir ${dataDir}` : `${toolport} serve`;
  return (
    `no backend is running for ${dataDir} (${CHOSEN[source]}; no backend.json)\n` +
    `  to start one for it: ${serve}\n` +
    `  to use a backend already running for another data dir: run this in that backend's folder (or below it), ` +
    `or set TOOLPORT_DATA_DIR (or --data-dir) to its data dir, or TOOLPORT_URL and TOOLPORT_ADMIN_TOKEN`
  );
}

/** A backend URL given by hand is checked before any request: a typo is bad usage (exit 2), not an unreachable backend. */
function checkUrl(raw: string, from: string): void {
  if (!isHttpUrl(raw)) throw new UsageError(`${from}: ${JSON.stringify(raw)} is not an http:// or https:// URL (e.g. http://127.0.0.1:7800)`);
}
