import { LogFormatError, resolveLogFormat } from '../../../src/adapters/cli/log-format';

describe('--log-format', () => {
  it('defaults to pretty on a terminal and JSON elsewhere', () => {
    expect(resolveLogFormat(undefined, {}, true)).toBe('pretty');
    expect(resolveLogFormat(undefined, {}, false)).toBe('json');
  });

  it('takes the flag, then TOOLPORT_LOG_FORMAT', () => {
    expect(resolveLogFormat('json', { TOOLPORT_LOG_FORMAT: 'pretty' }, true)).toBe('json');
    expect(resolveLogFormat(undefined, { TOOLPORT_LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });

  it('refuses another value, naming where it came from', () => {
    expect(() => resolveLogFormat('yaml', {}, true)).toThrow(new LogFormatError('--log-format: "yaml" is not one of pretty, json'));
    expect(() => resolveLogFormat(undefined, { TOOLPORT_LOG_FORMAT: 'text' }, true)).toThrow(/TOOLPORT_LOG_FORMAT: "text"/);
  });
});
