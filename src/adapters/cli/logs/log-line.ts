import type { LogRecord } from '../../../api';

// The same on every line of one plugin's log, or an internal handle: they would only hide what matters.
const QUIET_KEYS = new Set(['time', 'level', 'msg', 'plugin_id', 'plugin_version', 'instance_id', 'plugin_fields', 'stream', 'origin']);

/** A line the plugin wrote (its stderr or stdout), as opposed to the backend's record about it. */
function pluginOrigin(record: LogRecord): string | undefined {
  if (record.origin !== 'plugin' && typeof record.stream !== 'string') return undefined;
  return typeof record.stream === 'string' ? `[plugin ${record.stream}]` : '[plugin]';
}

/**
 * One record as a person reads it (docs/cli.md `plugin logs`): time, level, a `[plugin stderr]`
 * mark on a line the plugin wrote itself, the message, then the backend's fields as `key=value`
 * and the plugin's own after them as `plugin.key=value`: a plugin cannot print a field that
 * passes for the backend's. A value over several lines (a stack trace) is printed below,
 * indented, so it reads as it was written.
 */
export function formatLogRecord(record: LogRecord): string {
  const own = record.plugin_fields && typeof record.plugin_fields === 'object' ? (record.plugin_fields as Record<string, unknown>) : {};
  const fields: Array<[string, unknown]> = [
    ...Object.entries(record).filter(([key]) => !QUIET_KEYS.has(key)),
    ...Object.entries(own).map(([key, value]): [string, unknown] => [`plugin.${key}`, value]),
  ];
  const inline: string[] = [];
  const below: string[] = [];
  for (const [key, value] of fields) {
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.includes('\n')) below.push(`  ${key}:`, ...text.split('\n').map((line) => `    ${line.trimEnd()}`));
    else inline.push(`${key}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : text}`);
  }
  const mark = pluginOrigin(record);
  const head = [record.time, record.level.toUpperCase().padEnd(5), ...(mark ? [mark] : []), oneLine(record.msg), ...inline].join(' ');
  return [head, ...below].join('\n') + '\n';
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
