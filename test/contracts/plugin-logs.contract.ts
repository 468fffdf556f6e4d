import type { RingBounds } from '../../src/application/logs/plugin-log-ring';
import type { PluginLogRecord, PluginLogs } from '../../src/application/ports/plugin-logs';

/** One PluginLogs adapter under test: a fresh one holding nothing yet, with the bounds it was given. */
export interface PluginLogsFixture {
  logs: PluginLogs;
  /**
   * Optional, for adapters whose records outlive the process (the file adapter): a new
   * instance over the same storage, as the next backend process would open it.
   */
  reopen?(): PluginLogs;
  cleanup(): void | Promise<void>;
}

export type PluginLogsFixtureFactory = (bounds: RingBounds) => PluginLogsFixture | Promise<PluginLogsFixture>;

/** Roomy enough that no test but the bounds ones drops a record. */
const ROOMY: RingBounds = { maxRecords: 100, maxBytes: 64 * 1024 };

let clock = Date.parse('2026-01-01T00:00:00.000Z');

function record(pluginId: string, msg: string, extra: Record<string, unknown> = {}): PluginLogRecord {
  clock += 1000;
  return { time: new Date(clock).toISOString(), level: 'info', msg, plugin_id: pluginId, ...extra };
}

const messages = (records: PluginLogRecord[]): string[] => records.map((r) => r.msg);

/**
 * The PluginLogs contract (the port's promises: bounded per plugin, oldest dropped, listeners
 * told of each record kept, append never throws, close keeps later records in memory), run
 * with `describe.each` over `[name, factory]` rows.
 */
export function describePluginLogsContract(rows: Array<[string, PluginLogsFixtureFactory]>): void {
  describe.each(rows)('PluginLogs contract: %s', (_name, factory) => {
    let fixture: PluginLogsFixture | undefined;
    async function open(bounds: RingBounds = ROOMY): Promise<PluginLogs> {
      fixture = await factory(bounds);
      return fixture.logs;
    }
    afterEach(async () => {
      fixture?.logs.close();
      await fixture?.cleanup();
      fixture = undefined;
    });

    it('answers the last `limit` records of a plugin, oldest first, as they were written', async () => {
      const logs = await open();
      const first = record('acme.tools', 'one', { stream: 'stderr', attempt: 2, nested: { ok: true } });
      const second = { ...record('acme.tools', 'two'), level: 'warn' as const };
      const third = { ...record('acme.tools', 'three'), level: 'error' as const };
      for (const r of [first, second, third]) logs.append(r);
      expect(logs.recent('acme.tools', 10)).toEqual([first, second, third]);
      expect(logs.recent('acme.tools', 2)).toEqual([second, third]);
      expect(logs.recent('acme.tools', 1)).toEqual([third]);
    });

    it('answers nothing for a plugin never seen, and keeps each plugin apart', async () => {
      const logs = await open();
      expect(logs.recent('never.seen', 5)).toEqual([]);
      logs.append(record('acme.tools', 'mine'));
      logs.append(record('other.plugin', 'theirs'));
      logs.append(record('acme.tools', 'mine too'));
      expect(messages(logs.recent('acme.tools', 10))).toEqual(['mine', 'mine too']);
      expect(messages(logs.recent('other.plugin', 10))).toEqual(['theirs']);
      expect(logs.recent('never.seen', 5)).toEqual([]);
    });

    it('keeps at most maxRecords per plugin, dropping the oldest, without touching another plugin', async () => {
      const logs = await open({ maxRecords: 3, maxBytes: 64 * 1024 });
      logs.append(record('other.plugin', 'kept'));
      for (let n = 1; n <= 5; n++) logs.append(record('acme.tools', `record ${n}`));
      expect(messages(logs.recent('acme.tools', 10))).toEqual(['record 3', 'record 4', 'record 5']);
      expect(messages(logs.recent('other.plugin', 10))).toEqual(['kept']);
    });

    it('keeps at most maxBytes per plugin, dropping the oldest, but always the newest record', async () => {
      const size = Buffer.byteLength(JSON.stringify(record('acme.tools', 'record 1')));
      const logs = await open({ maxRecords: 100, maxBytes: size * 2 });
      for (let n = 1; n <= 4; n++) logs.append(record('acme.tools', `record ${n}`));
      expect(messages(logs.recent('acme.tools', 10))).toEqual(['record 3', 'record 4']);
      logs.append(record('acme.tools', 'a record larger than the whole bound', { padding: 'x'.repeat(size * 3) }));
      expect(messages(logs.recent('acme.tools', 10))).toEqual(['a record larger than the whole bound']);
    });

    it('tells every listener of each record kept from then on, in order, until it is removed', async () => {
      const logs = await open();
      logs.append(record('acme.tools', 'before'));
      const heard: string[] = [];
      const alsoHeard: PluginLogRecord[] = [];
      const remove = logs.onRecord((r) => heard.push(r.msg));
      logs.onRecord((r) => alsoHeard.push(r));
      const told = record('other.plugin', 'first');
      logs.append(told);
      logs.append(record('acme.tools', 'second'));
      remove();
      logs.append(record('acme.tools', 'after removal'));
      expect(heard).toEqual(['first', 'second']);
      expect(alsoHeard[0]).toEqual(told);
      expect(messages(alsoHeard)).toEqual(['first', 'second', 'after removal']);
    });

    it('never throws from append: a listener that throws is dropped for that record and the others still hear it', async () => {
      const logs = await open();
      const heard: string[] = [];
      logs.onRecord(() => {
        throw new Error('a broken watcher');
      });
      logs.onRecord((r) => heard.push(r.msg));
      expect(() => logs.append(record('acme.tools', 'still kept'))).not.toThrow();
      expect(heard).toEqual(['still kept']);
      expect(messages(logs.recent('acme.tools', 5))).toEqual(['still kept']);
    });

    it('never throws from append for a plugin id no file could be named by, and keeps its records', async () => {
      const logs = await open();
      for (const id of ['../outside', 'a/b', '.hidden', 'UPPER CASE']) {
        expect(() => logs.append(record(id, `from ${id}`))).not.toThrow();
        expect(messages(logs.recent(id, 5))).toEqual([`from ${id}`]);
      }
    });

    it('after close, keeps later records in memory and still tells listeners, never throwing', async () => {
      const logs = await open();
      logs.append(record('acme.tools', 'before close'));
      const heard: string[] = [];
      logs.onRecord((r) => heard.push(r.msg));
      logs.close();
      expect(() => logs.append(record('acme.tools', 'after close'))).not.toThrow();
      expect(() => logs.append(record('new.plugin', 'first after close'))).not.toThrow();
      expect(messages(logs.recent('acme.tools', 5))).toEqual(['before close', 'after close']);
      expect(messages(logs.recent('new.plugin', 5))).toEqual(['first after close']);
      expect(heard).toEqual(['after close', 'first after close']);
    });

    it('hands what it kept before close to the next instance, and nothing appended after (durable adapters)', async () => {
      const logs = await open();
      if (!fixture?.reopen) {
        // A volatile adapter has nothing to hand on; the shape of the suite stays the same.
        expect(fixture?.reopen).toBeUndefined();
        return;
      }
      logs.append(record('acme.tools', 'one', { stream: 'stderr' }));
      logs.append(record('acme.tools', 'two'));
      logs.close();
      logs.append(record('acme.tools', 'memory only'));
      const next = fixture.reopen();
      try {
        expect(messages(next.recent('acme.tools', 10))).toEqual(['one', 'two']);
        expect(next.recent('acme.tools', 1)[0]).toEqual(logs.recent('acme.tools', 2)[0]);
      } finally {
        next.close();
      }
    });
  });
}
