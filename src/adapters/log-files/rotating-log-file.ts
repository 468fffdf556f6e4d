import { closeSync, existsSync, fchmodSync, fstatSync, openSync, readSync, renameSync, statSync, writeSync } from 'node:fs';

export interface RotationPolicy {
  /** The live file never grows past this (unless one line is longer): it is rotated first. */
  maxBytes: number;
  /** Rotated files kept beside the live one, at least 1 (`x.log.1` the newest … `x.log.N` the oldest). */
  generations: number;
}

export const DEFAULT_ROTATION: RotationPolicy = { maxBytes: 5 * 1024 * 1024, generations: 3 };

/**
 * A JSON-lines file written synchronously (a record is on disk when the logger returns) and
 * rotated by size: the live file becomes `.1`, `.1` becomes `.2`, and the oldest is dropped.
 * Every file it makes is 0600.
 */
export class RotatingLogFile {
  private fd: number | undefined;
  private size = 0;

  constructor(
    readonly path: string,
    private readonly policy: RotationPolicy = DEFAULT_ROTATION,
  ) {}

  /** Appends one line (a newline is added). Throws what the file system throws. */
  append(line: string): void {
    if (this.fd === undefined) this.open();
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    // Rotate before a line that would pass the size, so the live file always holds the newest.
    if (this.size > 0 && this.size + bytes.length > this.policy.maxBytes) {
      this.rotate();
      this.open();
    }
    writeSync(this.fd!, bytes);
    this.size += bytes.length;
  }

  /** The last lines written, newest last, at most about `maxBytes` of them (rotated files included). */
  tail(maxBytes: number): string[] {
    const lines = readTail(this.path, maxBytes);
    const used = lines.reduce((sum, line) => sum + line.length + 1, 0);
    if (used >= maxBytes) return lines;
    return [...readTail(`${this.path}.1`, maxBytes - used), ...lines];
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): void {
    this.fd = openSync(this.path, 'a', 0o600);
    // A file left by an older build may have a looser mode; the records are the operator's alone.
    fchmodSync(this.fd, 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private rotate(): void {
    this.close();
    for (let generation = this.policy.generations - 1; generation >= 1; generation--) {
      const from = `${this.path}.${generation}`;
      if (existsSync(from)) renameSync(from, `${this.path}.${generation + 1}`);
    }
    renameSync(this.path, `${this.path}.1`);
    this.size = 0;
  }
}

/** The complete lines in the last `maxBytes` of a file (none when it does not exist). */
function readTail(path: string, maxBytes: number): string[] {
  if (maxBytes <= 0 || !existsSync(path)) return [];
  const size = statSync(path).size;
  const length = Math.min(size, maxBytes);
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  const lines = buffer.toString('utf8').split('\n');
  lines.pop(); // the text after the last newline: empty, or a line still being written
  if (length < size) lines.shift(); // cut in the middle of a line
  return lines.filter((line) => line !== '');
}
