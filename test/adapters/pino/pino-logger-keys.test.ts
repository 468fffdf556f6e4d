import { PinoLogger } from '../../../src/adapters/pino/pino-logger';
import { duplicateJsonKeys } from '../../support/duplicate-json-keys';

/** A logger at `level` and every line it writes, raw, as stderr would get it. */
function capture(level: string): { logger: PinoLogger; lines: string[] } {
  const lines: string[] = [];
  return { logger: PinoLogger.toStderr(level, { role: 'backend' }, { stream: { write: (line: string) => lines.push(line) } }), lines };
}

describe('PinoLogger records', () => {
  const writing = () => capture('debug');

  it('never carries a key twice: a field named like a binding is dropped when equal, kept aside when not', () => {
    const { logger, lines } = writing();
    const plugin = logger.child({ component: 'runtime' }).child({ plugin_id: 'acme.tools', component: 'runtime' });
    plugin.info({ pid: 4242, plugin_id: 'acme.tools', role: 'backend' }, 'plugin started');
    plugin.warn({ plugin_pid: 4242 }, 'plugin restarted');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(duplicateJsonKeys(line)).toEqual([]);
    const first = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(first).toMatchObject({
      pid: process.pid,
      role: 'backend',
      component: 'runtime',
      plugin_id: 'acme.tools',
      clashing_fields: { pid: 4242 },
      msg: 'plugin started',
    });
    expect(JSON.parse(lines[1])).toMatchObject({ pid: process.pid, plugin_pid: 4242 });
    expect(JSON.parse(lines[1])).not.toHaveProperty('clashing_fields');
  });

  it('the duplicate-key reader sees what JSON.parse hides', () => {
    expect(duplicateJsonKeys('{"pid":1,"a":{"pid":2,"b":[{"x":1,"x":2}]},"pid":3}')).toEqual(['x', 'pid']);
    expect(duplicateJsonKeys('{"msg":"a \\"pid\\": quoted","pid":1}')).toEqual([]);
  });

  it('writes nothing below its level', () => {
    const { logger, lines } = capture('silent');
    logger.error({}, 'not written');
    expect(lines).toEqual([]);
  });
});
