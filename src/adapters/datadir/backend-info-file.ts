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
  writeFileSync(temporary, `${JSON.stringify(info)}\n`, { mode: 0o644 });
  renameSync(temporary, target);
}

/** The recorded backend, or undefined when there is none or the file is unreadable. */
export function readBackendInfo(dataDir: string): BackendInfo | undefined {
  try {
    const value = JSON.parse(readFileSync(backendInfoPath(dataDir), 'utf8')) as Partial<BackendInfo>;
    if (typeof value.url === 'string' && typeof value.pid === 'number') return { url: value.url, pid: value.pid };
  } catch {
    // missing or being replaced
  }
  return undefined;
}

export function removeBackendInfo(dataDir: string): void {
  try {
    unlinkSync(backendInfoPath(dataDir));
  } catch {
    // already gone
  }
}
