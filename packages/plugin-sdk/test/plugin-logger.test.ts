import { createPluginLogger } from '../src/plugin-logger';

describe('createPluginLogger', () => {
  it('writes one JSON line per record with pino numeric levels, the message last', () => {
    const lines: string[] = [];
    const log = createPluginLogger('debug', (line) => lines.push(line));
    log.debug('d');
    log.info('started', { port: 4242 });
    log.warn('w');
    log.error('e');
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => record.level)).toEqual([20, 30, 40, 50]);
    expect(records[1]).toMatchObject({ port: 4242, msg: 'started', time: expect.any(Number) });
    expect(Object.keys(records[1]).at(-1)).toBe('msg');
  });

  it('drops records below its minimum level', () => {
    const lines: string[] = [];
    const log = createPluginLogger('warn', (line) => lines.push(line));
    log.debug('d');
    log.info('i');
    log.warn('w');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['w']);
  });

  it('keeps its own level and message over fields of the same name', () => {
    const lines: string[] = [];
    createPluginLogger('info', (line) => lines.push(line)).info('real', { msg: 'forged', level: 50, time: 'then', port: 1 });
    const record = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(record).toEqual({ level: 30, time: expect.any(Number), port: 1, msg: 'real' });
    expect(Object.keys(record)).toEqual(['level', 'time', 'port', 'msg']);
  });
});
