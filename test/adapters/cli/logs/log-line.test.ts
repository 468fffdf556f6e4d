import { formatLogRecord } from '../../../../src/adapters/cli/logs/log-line';

describe('a log record as a person reads it', () => {
  it('shows time, level, message and the fields that matter on one line', () => {
    const line = formatLogRecord({
      time: '2026-12-01T12:44:02.117Z',
      level: 'warn',
      msg: 'tool call',
      plugin_id: 'acme.tasks',
      plugin_version: '1.0.0',
      instance_id: 'b7e4',
      component: 'invoke',
      code: 'TOOL_TIMEOUT',
      reason: 'acme.tasks/add did not answer within 30000 ms',
      duration_ms: 30001,
    });
    expect(line).toBe(
      '2026-12-01T12:44:02.117Z WARN  tool call component=invoke code=TOOL_TIMEOUT reason="acme.tasks/add did not answer within 30000 ms" duration_ms=30001\n',
    );
  });

  it("puts a plugin's own fields after the backend's, each as plugin.<key>, and a stack below, indented", () => {
    const text = formatLogRecord({
      time: 't',
      level: 'error',
      msg: 'tool handler threw',
      plugin_id: 'acme.tasks',
      stream: 'stderr',
      plugin_fields: { tool: 'add', error: 'no such list', stack: 'Error: no such list\n    at add (/p/main.js:3:9)' },
    });
    expect(text.split('\n')).toEqual([
      't ERROR [plugin stderr] tool handler threw plugin.tool=add plugin.error="no such list"',
      '  plugin.stack:',
      '    Error: no such list',
      '        at add (/p/main.js:3:9)',
      '',
    ]);
  });

  it("never lets a plugin's fields pass for the backend's, and marks only the lines the plugin wrote", () => {
    const forged = formatLogRecord({
      time: 't',
      level: 'info',
      msg: 'tool call',
      plugin_id: 'acme.tasks',
      origin: 'plugin',
      stream: 'stderr',
      plugin_fields: { component: 'invoke', code: 'TOOL_TIMEOUT', duration_ms: 1 },
    });
    expect(forged).toBe('t INFO  [plugin stderr] tool call plugin.component=invoke plugin.code=TOOL_TIMEOUT plugin.duration_ms=1\n');
    const own = formatLogRecord({ time: 't', level: 'info', msg: 'tool call', plugin_id: 'acme.tasks', component: 'invoke', code: 'TOOL_TIMEOUT' });
    expect(own).toBe('t INFO  tool call component=invoke code=TOOL_TIMEOUT\n');
  });
});
