import type { LogFields, Logger } from '../../application/ports/logger';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** A plugin's output line is cut here and the rest of it dropped (docs/plugin-protocol.md §4). */
export const MAX_LINE_BYTES = 64 * 1024;

const PINO_LEVELS: Record<number, Level> = { 10: 'debug', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'error' };
/** hclog's names, as go-plugin plugins write them in `@level`. */
const NAMED_LEVELS: Record<string, Level> = { trace: 'debug', debug: 'debug', info: 'info', warn: 'warn', warning: 'warn', error: 'error', fatal: 'error' };
const DROPPED_KEYS = new Set(['level', 'msg', 'message', 'time', 'pid', 'hostname', 'v', '@level', '@message', '@timestamp']);

/**
 * Splits bytes into lines of at most `maxBytes` (default 64 KiB), however they arrive. A longer
 * line is passed on as soon as it reaches the limit, cut at a character boundary and marked
 * truncated, and its rest is dropped up to the next newline: memory stays bounded by the
 * limit whatever a plugin writes.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping = false;

  constructor(
    private readonly onLine: (line: string, truncated: boolean) => void,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.dropping && end > start) this.keep(chunk.subarray(start, end));
      if (newline === -1) return;
      if (this.dropping) this.dropping = false;
      else this.emit(false);
      start = newline + 1;
    }
  }

  /** The stream ended: a last unterminated line is passed on. */
  end(): void {
    if (!this.dropping && this.size > 0) this.emit(false);
    this.dropping = false;
  }

  private keep(piece: Buffer): void {
    const room = this.maxBytes - this.size;
    if (piece.length <= room) {
      // A copy: a slice would keep the whole chunk it came from alive.
      this.parts.push(Buffer.from(piece));
      this.size += piece.length;
      return;
    }
    let cut = room;
    while (cut > 0 && (piece[cut] & 0xc0) === 0x80) cut -= 1;
    this.parts.push(Buffer.from(piece.subarray(0, cut)));
    this.emit(true);
    this.dropping = true;
  }

  private emit(truncated: boolean): void {
    const line = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    this.size = 0;
    this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line, truncated);
  }
}

/**
 * Turns one line a plugin wrote into a host log record (docs/plugin-protocol.md §6), marked
 * `origin: "plugin"` with its `stream`. A JSON line (pino, the SDK's own records, or
 * go-plugin's hclog with `@level`/`@message`) keeps its level and message, with its other
 * fields under `plugin_fields` only: nothing a plugin writes sets one of the backend's own
 * fields. Any other line is logged as is at `level`.
 */
export function logPluginLine(logger: Logger, stream: 'stderr' | 'stdout', line: string, level: Level, truncated = false): void {
  if (line.trim() === '') return;
  const fields: LogFields = truncated ? { origin: 'plugin', stream, truncated: true } : { origin: 'plugin', stream };
  const record = parseJsonRecord(line);
  if (!record) {
    logger[level](fields, line);
    return;
  }
  const extra = Object.fromEntries(Object.entries(record).filter(([key]) => !DROPPED_KEYS.has(key)));
  if (Object.keys(extra).length > 0) fields.plugin_fields = extra;
  const message = [record.msg, record.message, record['@message']].find((m): m is string => typeof m === 'string') ?? line;
  logger[stream === 'stdout' ? 'debug' : levelOf(record.level ?? record['@level'], level)](fields, message);
}

function parseJsonRecord(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function levelOf(value: unknown, fallback: Level): Level {
  if (typeof value === 'number') return PINO_LEVELS[value] ?? fallback;
  if (typeof value === 'string') return NAMED_LEVELS[value.toLowerCase()] ?? fallback;
  return fallback;
}

/** The last `size` lines seen, oldest first (the §3 "last 20 stderr lines"). */
export class LineTail {
  private readonly lines: string[] = [];

  constructor(private readonly size = 20) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
  }

  snapshot(): string[] {
    return [...this.lines];
  }
}
