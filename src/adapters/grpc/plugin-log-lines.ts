import type { Readable } from 'node:stream';
import type { LogFields, Logger } from '../../application/ports/logger';

type Level = 'debug' | 'info' | 'warn' | 'error';

const PINO_LEVELS: Record<number, Level> = { 10: 'debug', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'error' };
const DROPPED_KEYS = new Set(['level', 'msg', 'message', 'time', 'pid', 'hostname', 'v']);

/** Calls `onLine` for each complete line of `stream` (and a last unterminated one at its end). */
export function forEachLine(stream: Readable, onLine: (line: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) onLine(part.replace(/\r$/, ''));
  });
  stream.on('end', () => {
    if (pending !== '') onLine(pending);
    pending = '';
  });
}

/**
 * Turns one line a plugin wrote into a host log record. A JSON line (pino, or the SDK's own
 * records) keeps its level and message, with its other fields under `plugin_fields`; any
 * other line is logged as is at `level`.
 */
export function logPluginLine(logger: Logger, stream: 'stderr' | 'stdout', line: string, level: Level): void {
  if (line.trim() === '') return;
  const record = parseJsonRecord(line);
  if (!record) {
    logger[level]({ stream }, line);
    return;
  }
  const fields: LogFields = { stream };
  const extra = Object.fromEntries(Object.entries(record).filter(([key]) => !DROPPED_KEYS.has(key)));
  if (Object.keys(extra).length > 0) fields.plugin_fields = extra;
  const message = typeof record.msg === 'string' ? record.msg : typeof record.message === 'string' ? record.message : line;
  logger[stream === 'stdout' ? 'debug' : levelOf(record.level, level)](fields, message);
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
  if (value === 'trace') return 'debug';
  if (value === 'fatal') return 'error';
  if (value === 'debug' || value === 'info' || value === 'warn' || value === 'error') return value;
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
