import { PassThrough } from 'node:stream';
import { forEachLine, LineTail, logPluginLine } from '../../../src/adapters/grpc/plugin-log-lines';
import { CapturingLogger } from '../../support/capturing-logger';

describe('plugin output as log records', () => {
  it('keeps the level, message and fields of a JSON (pino) line', () => {
    const logger = new CapturingLogger();
    logPluginLine(logger, 'stderr', JSON.stringify({ level: 40, time: 1, pid: 9, hostname: 'h', msg: 'disk low', free_mb: 12 }), 'info');
    expect(logger.records).toEqual([{ level: 'warn', fields: { stream: 'stderr', plugin_fields: { free_mb: 12 } }, message: 'disk low' }]);
  });

  it('logs a plain line as is, and skips blank lines', () => {
    const logger = new CapturingLogger();
    logPluginLine(logger, 'stderr', 'Traceback (most recent call last):', 'info');
    logPluginLine(logger, 'stderr', '   ', 'info');
    logPluginLine(logger, 'stdout', '{"level":50,"msg":"printed on stdout"}', 'debug');
    expect(logger.records).toEqual([
      { level: 'info', fields: { stream: 'stderr' }, message: 'Traceback (most recent call last):' },
      { level: 'debug', fields: { stream: 'stdout' }, message: 'printed on stdout' },
    ]);
  });

  it('splits a stream into lines across chunks, including a last unterminated one', () => {
    const stream = new PassThrough();
    const lines: string[] = [];
    forEachLine(stream, (line) => lines.push(line));
    stream.write('first li');
    stream.write('ne\r\nsecond\nthi');
    stream.end('rd');
    return new Promise<void>((resolve) =>
      stream.on('end', () => {
        expect(lines).toEqual(['first line', 'second', 'third']);
        resolve();
      }),
    );
  });

  it('keeps the last 20 lines only', () => {
    const tail = new LineTail(20);
    for (let i = 1; i <= 25; i += 1) tail.push(`line ${i}`);
    expect(tail.snapshot()).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 6}`));
  });
});
