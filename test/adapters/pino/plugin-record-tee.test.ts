import { InMemoryPluginLogs } from '../../../src/adapters/memory/in-memory-plugin-logs';
import { pluginRecordTee } from '../../../src/adapters/pino/plugin-record-tee';

const OWN_PID = 4242;

function teed(lines: string[]) {
  const logs = new InMemoryPluginLogs();
  const tee = pluginRecordTee(logs, OWN_PID);
  for (const line of lines) tee(line);
  return logs;
}

describe('pluginRecordTee', () => {
  it('keeps a record naming a plugin as written, its level as a word, without the backend’s own pid and role', () => {
    const logs = teed([
      `{"level":40,"time":"2026-12-01T10:00:00.000Z","pid":${OWN_PID},"role":"backend","component":"invoke","plugin_id":"acme.tools","code":"TOOL_TIMEOUT","msg":"tool call"}\n`,
    ]);
    expect(logs.recent('acme.tools', 10)).toEqual([
      { time: '2026-12-01T10:00:00.000Z', level: 'warn', msg: 'tool call', plugin_id: 'acme.tools', component: 'invoke', code: 'TOOL_TIMEOUT' },
    ]);
  });

  it('keeps a pid that is not the backend’s (the plugin process’s)', () => {
    const logs = teed([`{"level":30,"time":"t","pid":${OWN_PID},"plugin_id":"acme.tools","pid":777,"msg":"plugin started"}`]);
    expect(logs.recent('acme.tools', 1)[0]).toMatchObject({ pid: 777, level: 'info' });
  });

  it('skips records naming no plugin, and lines that are not JSON records', () => {
    const logs = teed([
      '{"level":30,"time":"t","msg":"backend ready"}',
      'not json but mentions "plugin_id":"acme.tools"',
      '{"level":30,"time":"t","plugin_id":42,"msg":"a number is no id"}',
    ]);
    expect(logs.recent('acme.tools', 10)).toEqual([]);
  });

  it('maps every pino level', () => {
    const levels = [10, 20, 30, 40, 50, 60].map((level) => `{"level":${level},"time":"t","plugin_id":"p","msg":"m"}`);
    expect(
      teed(levels)
        .recent('p', 10)
        .map((r) => r.level),
    ).toEqual(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
  });
});
