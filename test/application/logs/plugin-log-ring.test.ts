import { PluginLogRing } from '../../../src/application/logs/plugin-log-ring';
import type { PluginLogRecord } from '../../../src/application/ports/plugin-logs';

const record = (n: number): PluginLogRecord => ({ time: '2026-12-01T00:00:00.000Z', level: 'info', msg: `line ${n}`, plugin_id: 'acme.tools' });
const messages = (records: PluginLogRecord[]) => records.map((r) => r.msg);

describe('PluginLogRing', () => {
  it('keeps the last records up to its count bound, oldest first', () => {
    const ring = new PluginLogRing({ maxRecords: 3, maxBytes: 1_000_000 });
    for (let n = 1; n <= 5; n++) ring.push(record(n), 10);
    expect(messages(ring.last(10))).toEqual(['line 3', 'line 4', 'line 5']);
    expect(messages(ring.last(2))).toEqual(['line 4', 'line 5']);
    expect(ring.size()).toBe(3);
  });

  it('drops the oldest records once their bytes pass the byte bound, whichever bound comes first', () => {
    const ring = new PluginLogRing({ maxRecords: 1000, maxBytes: 250 });
    for (let n = 1; n <= 10; n++) ring.push(record(n), 100);
    expect(messages(ring.last(1000))).toEqual(['line 9', 'line 10']);
  });

  it('keeps a single record larger than the byte bound rather than nothing', () => {
    const ring = new PluginLogRing({ maxRecords: 10, maxBytes: 50 });
    ring.push(record(1), 10);
    ring.push(record(2), 500);
    expect(messages(ring.last(10))).toEqual(['line 2']);
  });

  it('stays right across many pushes (its storage is compacted now and then)', () => {
    const ring = new PluginLogRing({ maxRecords: 7, maxBytes: 1_000_000 });
    for (let n = 1; n <= 1000; n++) ring.push(record(n), 10);
    expect(messages(ring.last(7))).toEqual([994, 995, 996, 997, 998, 999, 1000].map((n) => `line ${n}`));
  });
});
