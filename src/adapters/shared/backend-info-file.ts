import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSameProcess } from './process-identity';

/**
 * `<data-dir>/backend.json`: how CLIs and agentctls find the running backend, and what proves
 * which process wrote it (docs/cli.md, "Finding the backend"): its pid with that process's start time (a reused pid
 * has another), and the instance id the backend also tells a client that signed in.
 */
export interface BackendInfo {
  url: string;
  pid: number;
  /** Field 22 of /proc/<pid>/stat when the backend wrote the file (clock ticks after boot). */
  start_time?: number;
  /** Random per backend process; the sign-in answer carries it too. */
  instance_id?: string;
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
    if (typeof value?.url === 'string' && value.url.length > 0 && typeof value.pid === 'number') {
      return {
        url: value.url,
        pid: value.pid,
        ...(typeof value.start_time === 'number' ? { start_time: value.start_time } : {}),
        ...(typeof value.instance_id === 'string' ? { instance_id: value.instance_id } : {}),
      };
    }
  } catch {
    // a partial file cannot be seen (it is renamed into place); anything else is unreadable
  }
  return 'unreadable';
}

/**
 * True when the process that wrote `info` still runs: the pid exists, is no zombie and started
 * at the recorded time. A file without a start time (an older backend's) is never trusted.
 */
export function isRecordedBackendRunning(info: BackendInfo): boolean {
  return info.start_time !== undefined && isSameProcess({ pid: info.pid, startTime: info.start_time });
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
