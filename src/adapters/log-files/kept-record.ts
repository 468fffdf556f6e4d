import type { PluginLogRecord } from '../../application/ports/plugin-logs';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

/** A line of a plugin's log file back as its record; null for a line that is not one of `pluginId`'s. */
export function parseKeptRecord(line: string, pluginId: string): PluginLogRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (record.plugin_id !== pluginId || typeof record.time !== 'string' || typeof record.msg !== 'string') return null;
  if (typeof record.level !== 'string' || !LEVELS.has(record.level)) return null;
  return record as PluginLogRecord;
}
