import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilePluginLogs } from '../../../src/adapters/log-files/file-plugin-logs';
import type { PluginLogRecord } from '../../../src/application/ports/plugin-logs';

const record = (pluginId: string, msg: string, extra: Record<string, unknown> = {}): PluginLogRecord => ({
  time: new Date().toISOString(),
  level: 'info',
  msg,
  plugin_id: pluginId,
  ...extra,
});

describe('FilePluginLogs', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'toolport-plugin-logs-')), 'logs');
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('keeps each plugin apart, in memory and in a private JSON-lines file of its own', () => {
    const logs = new FilePluginLogs(dir);
    logs.append(record('acme.tools', 'one'));
    logs.append(record('other.plugin', 'elsewhere'));
    logs.append(record('acme.tools', 'two', { stream: 'stderr' }));
    logs.close();
    expect(logs.recent('acme.tools', 10).map((r) => r.msg)).toEqual(['one', 'two']);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const file = join(dir, 'acme.tools.log');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([expect.objectContaining({ msg: 'one' }), expect.objectContaining({ msg: 'two', stream: 'stderr', level: 'info' })]);
  });

  it('tells listeners of every record as it is kept, and stops when removed', () => {
    const logs = new FilePluginLogs(dir);
    const seen: string[] = [];
    const remove = logs.onRecord((r) => seen.push(r.msg));
    logs.onRecord(() => {
      throw new Error('a broken watcher');
    });
    logs.append(record('acme.tools', 'heard'));
    remove();
    logs.append(record('acme.tools', 'not heard'));
    logs.close();
    expect(seen).toEqual(['heard']);
    expect(logs.recent('acme.tools', 10)).toHaveLength(2);
  });

  it('rotates the file by size and keeps only the configured generations', () => {
    const logs = new FilePluginLogs(dir, { rotation: { maxBytes: 400, generations: 2 } });
    for (let n = 0; n < 40; n++) logs.append(record('acme.tools', `record number ${n}`));
    logs.close();
    expect(readdirSync(dir).sort()).toEqual(['acme.tools.log', 'acme.tools.log.1', 'acme.tools.log.2']);
    for (const name of readdirSync(dir)) {
      expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(400);
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    }
    const newest = readFileSync(join(dir, 'acme.tools.log'), 'utf8').trim().split('\n');
    expect(JSON.parse(newest.at(-1)!).msg).toBe('record number 39');
  });

  it('starts a plugin’s ring from the tail of its file, so a restarted backend still shows earlier records', () => {
    const first = new FilePluginLogs(dir, { rotation: { maxBytes: 500, generations: 3 } });
    for (let n = 0; n < 12; n++) first.append(record('acme.tools', `before restart ${n}`));
    first.close();
    const second = new FilePluginLogs(dir, { rotation: { maxBytes: 500, generations: 3 } });
    second.append(record('acme.tools', 'after restart'));
    const msgs = second.recent('acme.tools', 1000).map((r) => r.msg);
    second.close();
    expect(msgs.at(-1)).toBe('after restart');
    expect(msgs.at(-2)).toBe('before restart 11');
    // Records from the rotated file too, in order, with no line cut in half.
    expect(msgs.filter((m) => m.startsWith('before restart')).length).toBeGreaterThan(4);
    const numbers = msgs.filter((m) => m.startsWith('before')).map((m) => Number(m.split(' ').at(-1)));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it('writes no file for an id that could not name one safely, but keeps its records in memory', () => {
    const logs = new FilePluginLogs(dir);
    logs.append(record('../escape', 'kept in memory'));
    logs.close();
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, '..', 'escape.log'))).toBe(false);
    expect(logs.recent('../escape', 5).map((r) => r.msg)).toEqual(['kept in memory']);
  });

  it('keeps records in memory once closed (the last ones written at shutdown)', () => {
    const logs = new FilePluginLogs(dir);
    logs.close();
    logs.append(record('acme.tools', 'late'));
    expect(logs.recent('acme.tools', 5).map((r) => r.msg)).toEqual(['late']);
    expect(readdirSync(dir)).toEqual([]);
  });
});
