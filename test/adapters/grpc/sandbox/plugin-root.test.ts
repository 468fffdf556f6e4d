import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPluginFolders, PLUGIN_ROOT } from '../../../../src/adapters/grpc/sandbox/plugin-root';
import { openPrivateDataDir } from '../../../../src/adapters/shared/private-data-dir';

const mode = (path: string): number => lstatSync(path).mode & 0o7777;

/** The plugin folders' layout (docs/operations.md §4): under `plugin-root/` when plugins run as uids of their own. */
describe('openPluginFolders', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'toolport-layout-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('with plugin uids: the data dir 0711 and every folder on the way to a plugin’s own 0711, the rest of the data dir untouched', () => {
    writeFileSync(join(dataDir, 'secret.key'), 'k', { mode: 0o600 });
    const folders = openPluginFolders(dataDir, true);
    const root = join(dataDir, PLUGIN_ROOT);
    expect(folders).toEqual({ root, tmpRoot: join(root, 'plugin-tmp'), tmpMode: 0o711 });
    expect(mode(dataDir)).toBe(0o711);
    for (const folder of [root, join(root, 'plugins'), join(root, 'plugin-data')]) expect(mode(folder)).toBe(0o711);
    expect(mode(join(dataDir, 'secret.key'))).toBe(0o600);
  });

  it('without plugin uids: the folders stay directly in the data dir, which stays private', () => {
    const folders = openPluginFolders(dataDir, false);
    expect(folders).toEqual({ root: dataDir, tmpRoot: join(dataDir, 'plugin-tmp'), tmpMode: 0o700 });
    expect(mode(dataDir)).toBe(0o700);
    expect(lstatSync(join(dataDir, PLUGIN_ROOT), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('moves what an earlier start kept in the other layout over, both ways', () => {
    mkdirSync(join(dataDir, 'plugins', 'p', '1.0.0'), { recursive: true });
    mkdirSync(join(dataDir, 'plugin-data', 'p'), { recursive: true });
    writeFileSync(join(dataDir, 'plugin-data', 'p', 'kept'), 'data');
    openPluginFolders(dataDir, true);
    expect(readFileSync(join(dataDir, PLUGIN_ROOT, 'plugin-data', 'p', 'kept'), 'utf8')).toBe('data');
    expect(statSync(join(dataDir, PLUGIN_ROOT, 'plugins', 'p', '1.0.0')).isDirectory()).toBe(true);
    expect(lstatSync(join(dataDir, 'plugins'), { throwIfNoEntry: false })).toBeUndefined();
    openPluginFolders(dataDir, false);
    expect(readFileSync(join(dataDir, 'plugin-data', 'p', 'kept'), 'utf8')).toBe('data');
    expect(lstatSync(join(dataDir, PLUGIN_ROOT), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('refuses a plugin-root that is a link, and changes nothing through it', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'toolport-elsewhere-'));
    try {
      symlinkSync(elsewhere, join(dataDir, PLUGIN_ROOT));
      expect(() => openPluginFolders(dataDir, true)).toThrow(`${join(dataDir, PLUGIN_ROOT)} is not a folder the backend can use (a symbolic link)`);
      expect(mode(elsewhere)).toBe(0o700);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('is not undone by the data dir check at the next start, which tightens anything else', () => {
    openPluginFolders(dataDir, true);
    mkdirSync(join(dataDir, 'logs'), { mode: 0o755 });
    const { tightened } = openPrivateDataDir(dataDir, undefined, { traversable: [PLUGIN_ROOT] });
    expect(tightened.map((entry) => entry.path)).toEqual([join(dataDir, 'logs')]);
    expect(mode(dataDir)).toBe(0o711);
    expect(mode(join(dataDir, PLUGIN_ROOT))).toBe(0o711);
    // Without plugin uids the same check makes both private again.
    openPrivateDataDir(dataDir);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, PLUGIN_ROOT))).toBe(0o700);
  });
});
