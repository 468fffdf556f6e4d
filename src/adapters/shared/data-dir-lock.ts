import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from './process-liveness';

/** Thrown when another live process holds the data dir. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(`data dir ${dataDir} is in use by toolport serve with pid ${holderPid}`);
    this.name = 'DataDirLockedError';
  }
}

/**
 * One `serve` per data dir: a lock file created exclusively holding the owner's pid. A lock
 * left by a dead process (a crash) is taken over, so a crashed backend never blocks the next.
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static acquire(dataDir: string, pid = process.pid): DataDirLock {
    const path = join(dataDir, 'serve.lock');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, `${pid}\n`);
        closeSync(fd);
        return new DataDirLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number.parseInt(safeRead(path), 10);
        if (Number.isInteger(holder) && holder > 0 && holder !== pid && isProcessAlive(holder)) {
          throw new DataDirLockedError(dataDir, holder);
        }
        try {
          unlinkSync(path);
        } catch {
          // another starter removed it first; try again
        }
      }
    }
    throw new Error(`could not lock data dir ${dataDir}`);
  }

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
