import { LineSplitter, LineTail, logPluginLine, MAX_LINE_BYTES } from '../../../src/adapters/grpc/plugin-log-lines';
import { CapturingLogger } from '../../support/capturing-logger';

describe('plugin output as log records', () => {
  it('keeps the level, message and fields of a JSON (pino) line', () => {
    const logger = new CapturingLogger();
    logPluginLine(logger, 'stderr', JSON.stringify({ level: 40, time: 1, pid: 9, hostname: 'h', msg: 'disk low', free_mb: 12 }), 'info');
    expect(logger.records).toEqual([{ level: 'warn', fields: { origin: 'plugin', stream: 'stderr', plugin_fields: { free_mb: 12 } }, message: 'disk low' }]);
  });

  it("keeps a plugin's JSON fields under plugin_fields: none sets one of the backend's own, and the record is marked as the plugin's", () => {
    const logger = new CapturingLogger();
    const line = JSON.stringify({ level: 30, msg: 'tool call', plugin_id: 'other.plugin', component: 'invoke', code: 'OK', origin: 'backend', stream: 'x' });
    logPluginLine(logger, 'stderr', line, 'info');
    expect(logger.records).toEqual([
      {
        level: 'info',
        fields: {
          origin: 'plugin',
          stream: 'stderr',
          plugin_fields: { plugin_id: 'other.plugin', component: 'invoke', code: 'OK', origin: 'backend', stream: 'x' },
        },
        message: 'tool call',
      },
    ]);
  });

  it('logs a plain line as is, and skips blank lines', () => {
    const logger = new CapturingLogger();
    logPluginLine(logger, 'stderr', 'Traceback (most recent call last):', 'info');
    logPluginLine(logger, 'stderr', '   ', 'info');
    logPluginLine(logger, 'stdout', '{"level":50,"msg":"printed on stdout"}', 'debug');
    expect(logger.records).toEqual([
      { level: 'info', fields: { origin: 'plugin', stream: 'stderr' }, message: 'Traceback (most recent call last):' },
      { level: 'debug', fields: { origin: 'plugin', stream: 'stdout' }, message: 'printed on stdout' },
    ]);
  });

  it('splits bytes into lines across chunks, including a last unterminated one', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push(Buffer.from('first li'));
    splitter.push(Buffer.from('ne\r\nsecond\nthi'));
    splitter.push(Buffer.from('rd'));
    splitter.end();
    expect(lines).toEqual(['first line', 'second', 'third']);
  });

  it.each([
    ['trace', 'debug'],
    ['debug', 'debug'],
    ['info', 'info'],
    ['warn', 'warn'],
    ['error', 'error'],
  ])('keeps the level of a go-plugin hclog line at @level %s', (hclogLevel, level) => {
    const logger = new CapturingLogger();
    const line = JSON.stringify({ '@level': hclogLevel, '@message': 'cache warmed', '@module': 'acme', '@timestamp': '2026-12-01T10:00:00.000Z', entries: 3 });
    logPluginLine(logger, 'stderr', line, 'info');
    expect(logger.records).toEqual([
      { level, fields: { origin: 'plugin', stream: 'stderr', plugin_fields: { '@module': 'acme', entries: 3 } }, message: 'cache warmed' },
    ]);
  });

  it('cuts a line at 64 KiB, drops the rest of it, and goes on with the next line', () => {
    const lines: Array<[string, boolean]> = [];
    const splitter = new LineSplitter((line, truncated) => lines.push([line, truncated]));
    // 64 MB without a newline, in pipe-sized chunks, then the next line.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let i = 0; i < 1024; i += 1) splitter.push(chunk);
    splitter.push(Buffer.from('tail of the long line\nnext line\n'));
    expect(lines.map(([line, truncated]) => [line.length, truncated])).toEqual([
      [MAX_LINE_BYTES, true],
      ['next line'.length, false],
    ]);
    expect(lines[1][0]).toBe('next line');
  });

  it('never cuts a character in two', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), 10);
    splitter.push(Buffer.from('aaaaaaaaa\u00e9bc\nok\n'));
    expect(lines).toEqual(['aaaaaaaaa', 'ok']);
  });

  it('marks a truncated line in its log record', () => {
    const logger = new CapturingLogger();
    logPluginLine(logger, 'stderr', 'x'.repeat(10), 'info', true);
    expect(logger.records[0]).toMatchObject({ level: 'info', fields: { origin: 'plugin', stream: 'stderr', truncated: true } });
  });

  it('keeps the last 20 lines only', () => {
    const tail = new LineTail(20);
    for (let i = 1; i <= 25; i += 1) tail.push(`line ${i}`);
    expect(tail.snapshot()).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 6}`));
  });
});
