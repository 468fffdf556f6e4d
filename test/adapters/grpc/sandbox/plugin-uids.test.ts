import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountUids, PluginUids } from '../../../../src/adapters/grpc/sandbox/plugin-uids';

/** A root backend's plugin uids (docs/operations.md §4): one of its own each, kept, never shared. */
describe('PluginUids', () => {
  let dir: string;
  let file: string;
  const none = new Set<number>();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-uids-'));
    file = join(dir, 'plugin-uids.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives each plugin the next free uid of the range, the same one at every later start', () => {
    const uids = new PluginUids(file, { start: 5000, end: 5009 }, none);
    expect(uids.allocated('a')).toBeNull();
    expect(uids.uidOf('a')).toBe(5000);
    expect(uids.uidOf('b')).toBe(5001);
    expect(uids.uidOf('a')).toBe(5000);
    expect(uids.allocated('b')).toBe(5001);
  });

  it('keeps them in a 0600 file, so another backend on the data dir gives the same ones', () => {
    new PluginUids(file, { start: 5000, end: 5009 }, none).uidOf('a');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ a: 5000 });
    const again = new PluginUids(file, { start: 5000, end: 5009 }, none);
    expect(again.allocated('a')).toBe(5000);
    expect(again.uidOf('c')).toBe(5001);
  });

  it('never gives an uninstalled plugin’s uid to another plugin, and gives it back to the same id reinstalled', () => {
    // An uninstall leaves the table alone: the kept entry is what keeps the uid from others.
    new PluginUids(file, { start: 5000, end: 5001 }, none).uidOf('gone');
    const later = new PluginUids(file, { start: 5000, end: 5001 }, none);
    expect(later.uidOf('new')).toBe(5001);
    expect(later.uidOf('gone')).toBe(5000);
  });

  it('skips the uids of the machine’s accounts', () => {
    const uids = new PluginUids(file, { start: 5000, end: 5009 }, new Set([5000, 5002]));
    expect([uids.uidOf('a'), uids.uidOf('b'), uids.uidOf('c')]).toEqual([5001, 5003, 5004]);
  });

  it('refuses a plugin once the range is used up, saying which range and what to do, and keeps what it had', () => {
    const uids = new PluginUids(file, { start: 5000, end: 5001 }, new Set([5001]));
    expect(uids.uidOf('a')).toBe(5000);
    expect(() => uids.uidOf('b')).toThrow('no plugin uid left in 5000-5001 (--plugin-uids): each plugin ever installed keeps its own; give a larger range');
    expect(uids.allocated('b')).toBeNull();
    expect(uids.uidOf('a')).toBe(5000);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ a: 5000 });
  });

  it.each([
    [0, 10],
    [10, 5],
    [1, 4_294_967_295],
    [1.5, 3],
  ])('refuses the range %d-%d, naming the flag', (start, end) => {
    expect(() => new PluginUids(file, { start, end }, none)).toThrow(`plugin uid range ${start}-${end} is not START-END`);
    expect(() => new PluginUids(file, { start, end }, none)).toThrow(/--plugin-uids/);
  });

  it('refuses a kept table that is not one, naming the file', () => {
    writeFileSync(file, 'not json');
    expect(() => new PluginUids(file, { start: 5000, end: 5009 }, none)).toThrow(`${file} is not a plugin uid table (not JSON)`);
    writeFileSync(file, '[1]');
    expect(() => new PluginUids(file, { start: 5000, end: 5009 }, none)).toThrow(`${file} is not a plugin uid table (not a JSON object)`);
  });

  it('reads the account uids from a passwd file', () => {
    const passwd = join(dir, 'passwd');
    writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/sh\nbob:x:5003:5003::/home/bob:/bin/sh\n\n# comment\n');
    expect([...accountUids(passwd)].sort()).toEqual([0, 5003]);
    expect(accountUids(join(dir, 'absent')).size).toBe(0);
  });
});
