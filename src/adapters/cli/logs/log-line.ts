import type { LogRecord } from '../../../api';

// The same on every line of one plugin's log, or an internal handle: they would only hide what matters.
const QUIET_KEYS = new Set(['time', 'level', 'msg', 'plugin_id', 'plugin_version', 'instance_id', 'plugin_fields', 'stream']);

/**
 * One record as a person reads it: time, level, message, then its other fields as `key=value`
 * (a plugin's own fields beside the backend's). A value over several lines (a stack trace) is
 * printed below, indented, so it reads as it was written.
 */
export function formatLogRecord(record: LogRecord): string {
  const own = record.plugin_fields && typeof record.plugin_fields === 'object' ? (record.plugin_fields as Record<string, unknown>) : {};
  const fields = { ...Object.fromEntries(Object.entries(record).filter(([key]) => !QUIET_KEYS.has(key))), ...own };
  const inline: string[] = [];
  const below: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.includes('\n')) below.push(`  ${key}:`, ...text.split('\n').map((line) => `    ${line.trimEnd()}`));
    else inline.push(`${key}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : text}`);
  }
  const head = [record.time, record.level.toUpperCase().padEnd(5), oneLine(record.msg), ...inline].join(' ');
  return [head, ...below].join('\n') + '\n';
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
