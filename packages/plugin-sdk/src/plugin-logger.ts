import type { LogLevel, PluginLogger } from './types';

const RANK: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

/**
 * JSON lines on stderr with pino's numeric levels, so the host keeps each record's level. Not
 * pino itself: the SDK stays small and bundles into one file without worker threads.
 */
export function createPluginLogger(minimum: LogLevel, write: (line: string) => void = writeStderr): PluginLogger {
  const log =
    (level: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      if (RANK[level] < RANK[minimum]) return;
      const record: Record<string, unknown> = { level: RANK[level], time: Date.now() };
      // A field named level, time or msg never replaces the record's own (nor appears twice).
      for (const [key, value] of Object.entries(fields)) {
        if (key !== 'msg' && key !== '__proto__' && !Object.hasOwn(record, key)) record[key] = value;
      }
      record.msg = message;
      write(`${JSON.stringify(record)}\n`);
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

function writeStderr(line: string): void {
  process.stderr.write(line);
}
