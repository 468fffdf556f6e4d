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

  it("puts a plugin's own fields beside the backend's and a stack below, indented", () => {
    const text = formatLogRecord({
      time: 't',
      level: 'error',
      msg: 'tool handler threw',
      plugin_id: 'acme.tasks',
      stream: 'stderr',
      plugin_fields: { tool: 'add', error: 'no such list', stack: 'Error: no such list\n    at add (/p/main.js:3:9)' },
    });
    expect(text.split('\n')).toEqual([
      't ERROR tool handler threw tool=add error="no such list"',
      '  stack:',
      '    Error: no such list',
      '        at add (/p/main.js:3:9)',
      '',
    ]);
  });
});
