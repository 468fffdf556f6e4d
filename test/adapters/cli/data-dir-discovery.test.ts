import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir, discoverDataDir } from '../../../src/adapters/cli/data-dir-discovery';
import { noBackendMessage } from '../../../src/adapters/cli/backend-locator';

describe('discoverDataDir (docs/cli.md, finding the data dir)', () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-discovery-')));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const home = () => join(root, 'home');

  it('takes --data-dir first, relative to the current folder', () => {
    mkdirSync(join(root, '.toolport'));
    expect(discoverDataDir({ given: 'state', env: { TOOLPORT_DATA_DIR: '/elsewhere' }, cwd: root, home: home() })).toEqual({
      dir: join(root, 'state'),
      source: 'flag',
    });
  });

  it('then TOOLPORT_DATA_DIR, before any .toolport folder', () => {
    mkdirSync(join(root, '.toolport'));
    expect(discoverDataDir({ env: { TOOLPORT_DATA_DIR: join(root, 'named') }, cwd: root, home: home() })).toEqual({
      dir: join(root, 'named'),
      source: 'env',
    });
  });

  it('then the nearest .toolport folder in the current folder or its parents, as git finds .git', () => {
    mkdirSync(join(root, 'a', '.toolport'), { recursive: true });
    mkdirSync(join(root, 'a', 'sub', 'plugin'), { recursive: true });
    expect(discoverDataDir({ env: {}, cwd: join(root, 'a', 'sub', 'plugin'), home: home() })).toEqual({ dir: join(root, 'a', '.toolport'), source: 'found' });
    expect(discoverDataDir({ env: {}, cwd: join(root, 'a'), home: home() })).toEqual({ dir: join(root, 'a', '.toolport'), source: 'found' });
    // A nearer one wins.
    mkdirSync(join(root, 'a', 'sub', '.toolport'));
    expect(discoverDataDir({ env: {}, cwd: join(root, 'a', 'sub', 'plugin'), home: home() }).dir).toBe(join(root, 'a', 'sub', '.toolport'));
  });

  it('ignores a .toolport that is a file, not a folder', () => {
    mkdirSync(join(root, 'p'));
    writeFileSync(join(root, 'p', '.toolport'), 'not a folder');
    expect(discoverDataDir({ env: { XDG_STATE_HOME: join(root, 'state') }, cwd: join(root, 'p'), home: home() })).toEqual({
      dir: join(root, 'state', 'toolport'),
      source: 'default',
    });
  });

  it('else ${XDG_STATE_HOME:-~/.local/state}/toolport, ignoring a relative XDG_STATE_HOME', () => {
    mkdirSync(join(root, 'empty'));
    const cwd = join(root, 'empty');
    expect(discoverDataDir({ env: {}, cwd, home: home() })).toEqual({ dir: join(home(), '.local', 'state', 'toolport'), source: 'default' });
    expect(defaultDataDir({ XDG_STATE_HOME: '/var/state' }, home())).toBe('/var/state/toolport');
    expect(defaultDataDir({ XDG_STATE_HOME: 'relative/state' }, home())).toBe(join(home(), '.local', 'state', 'toolport'));
    expect(defaultDataDir({ HOME: '/home/ada' })).toBe('/home/ada/.local/state/toolport');
  });
});

describe('the hint when no backend runs for the data dir', () => {
  it('names the data dir and how it was chosen, and never suggests a second serve for a backend running elsewhere', () => {
    const found = noBackendMessage('/p/.toolport', 'found');
    expect(found).toContain('no backend is running for /p/.toolport (the nearest .toolport/');
    expect(found).toContain('to start one for it: toolport serve\n');
    expect(found).toContain('TOOLPORT_DATA_DIR');
    expect(found).not.toContain('--data-dir ./.toolport');
    expect(noBackendMessage('/srv/tp', 'flag')).toContain('to start one for it: toolport serve --data-dir /srv/tp\n');
    expect(noBackendMessage('/h/.local/state/toolport', 'default')).toContain('the default: no TOOLPORT_DATA_DIR and no .toolport/');
  });
});
