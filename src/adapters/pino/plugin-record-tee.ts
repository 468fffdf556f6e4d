import type { PluginLogLevel, PluginLogRecord, PluginLogs } from '../../application/ports/plugin-logs';

const LEVEL_WORDS: Record<number, PluginLogLevel> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/**
 * A sink for the JSON lines the backend's pino writes: each record with a `plugin_id` is also
 * kept in that plugin's log, exactly as written (already redacted), its level as a word. The
 * backend's own `pid` and `role` (the same on every line) are left out: in a plugin's log a
 * pid should be the plugin's.
 */
export function pluginRecordTee(logs: PluginLogs, ownPid = process.pid): (line: string) => void {
  return (line) => {
    // Most lines name no plugin: skip them before paying for a parse.
    if (!line.includes('"plugin_id":')) return;
    const record = toPluginRecord(line, ownPid);
    if (record) logs.append(record);
  };
}

function toPluginRecord(line: string, ownPid: number): PluginLogRecord | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  // `role` is the same on every backend line too.
  const { time, level, msg, plugin_id: pluginId, pid, role: _role, ...rest } = parsed;
  if (typeof pluginId !== 'string' || pluginId === '') return null;
  return {
    time: typeof time === 'string' ? time : new Date().toISOString(),
    level: (typeof level === 'number' && LEVEL_WORDS[level]) || 'info',
    msg: typeof msg === 'string' ? msg : '',
    plugin_id: pluginId,
    ...(pid === undefined || pid === ownPid ? {} : { pid }),
    ...rest,
  };
}
