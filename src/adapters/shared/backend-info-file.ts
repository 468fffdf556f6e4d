import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `<data-dir>/backend.json`: how CLIs and agentctls find the running backend. */
export interface BackendInfo {
  url: string;
  pid: number;
}

export function backendInfoPath(dataDir: string): string {
  return join(dataDir, 'backend.json');
}

/** Written atomically (temporary file + rename) so a reader never sees half a file. */
export function writeBackendInfo(dataDir: string, info: BackendInfo): void {
  const target = backendInfoPath(dataDir);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  renameSync(temporary, target);
}

/** The recorded backend, `missing` when there is no file, `unreadable` when it is not one. */
export function loadBackendInfo(dataDir: string): BackendInfo | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(backendInfoPath(dataDir), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
  try {
    const value = JSON.parse(text) as Partial<BackendInfo> | null;
    if (typeof value?.url === 'string' && value.url.length > 0 && typeof value.pid === 'number') return { url: value.url, pid: value.pid };
  } catch {
    // a partial file cannot be seen (it is renamed into place); anything else is unreadable
  }
  return 'unreadable';
}

/** The recorded backend, or undefined when there is none or the file is unreadable. */
export function readBackendInfo(dataDir: string): BackendInfo | undefined {
  const info = loadBackendInfo(dataDir);
  return typeof info === 'string' ? undefined : info;
}

export function removeBackendInfo(dataDir: string): void {
  try {
    unlinkSync(backendInfoPath(dataDir));
  } catch {
    // already gone
  }
}
