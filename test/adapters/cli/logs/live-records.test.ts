import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { LogRecord } from '../../../../src/api';
import { LiveRecords } from '../../../../src/adapters/cli/logs/live-records';

const record = (plugin_id: string, msg: string): LogRecord => ({ time: '2026-12-01T12:00:00.000Z', level: 'info', msg, plugin_id });
const event = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/** The live channel as `plugin logs --follow` reads it: a response whose bytes come in whatever pieces. */
function liveChannel() {
  const stream = new PassThrough();
  return {
    response: stream as unknown as IncomingMessage,
    /** Writes `text`; resolves once the reader (listening first) has had it. */
    write: async (text: string) => {
      const read = once(stream, 'data');
      stream.write(text);
      await read;
    },
    end: () => stream.end(),
  };
}

/** A printer, and a promise of the messages once `count` are printed. */
function printer(count: number) {
  const printed: string[] = [];
  let done: (messages: string[]) => void = () => undefined;
  const all = new Promise<string[]>((resolve) => (done = resolve));
  const print = (r: LogRecord): void => {
    printed.push(r.msg);
    if (printed.length === count) done(printed);
  };
  return { print, all, printed };
}

describe('plugin logs --follow, reading the live channel', () => {
  it("prints the plugin's log events however their bytes are cut, skipping comments, other events and other plugins", async () => {
    const channel = liveChannel();
    const live = new LiveRecords(channel.response, 'acme.tasks');
    const { print, all } = printer(2);
    live.printFrom([], print);
    const text =
      ': keep-alive\n\n' +
      event('snapshot', { plugins: [] }) +
      event('log', record('acme.tasks', 'first')) +
      event('log', record('other.plugin', 'not this one')) +
      event('log', record('acme.tasks', 'second')).replace(/\n/g, '\r\n');
    for (let at = 0; at < text.length; at += 7) await channel.write(text.slice(at, at + 7));
    expect(await all).toEqual(['first', 'second']);
    channel.end();
    expect(await live.ended).toBe('backend_gone');
  });

  it('holds live records until the kept ones are printed, then prints each held one the kept ones do not already hold', async () => {
    const channel = liveChannel();
    const live = new LiveRecords(channel.response, 'acme.tasks');
    await channel.write(event('log', record('acme.tasks', 'kept and live')) + event('log', record('acme.tasks', 'live only')));
    const { print, all, printed } = printer(4);
    live.printFrom([record('acme.tasks', 'kept only'), record('acme.tasks', 'kept and live')], print);
    expect(printed).toEqual(['kept only', 'kept and live', 'live only']);
    await channel.write(event('log', record('acme.tasks', 'after')));
    expect(await all).toEqual(['kept only', 'kept and live', 'live only', 'after']);
    live.stop();
    expect(await live.ended).toBe('backend_gone');
  });
});
