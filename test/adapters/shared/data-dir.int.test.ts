import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveAdminToken } from '../../../src/adapters/shared/admin-token-file';
import { readBackendInfo, removeBackendInfo, writeBackendInfo } from '../../../src/adapters/shared/backend-info-file';
import { DataDirLock, DataDirLockedError } from '../../../src/adapters/shared/data-dir-lock';
import { DataDirNotPrivateError, makeDataDirPrivate } from '../../../src/adapters/shared/private-data-dir';
import { SqlitePluginStore } from '../../../src/adapters/sqlite/sqlite-plugin-store';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('data dir files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-datadir-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second holder while the first is alive, naming its pid', async () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      const first = DataDirLock.acquire(dir, sleeper.pid);
      expect(() => DataDirLock.acquire(dir)).toThrow(DataDirLockedError);
      expect(() => DataDirLock.acquire(dir)).toThrow(`pid ${sleeper.pid}`);
      first.release();
      DataDirLock.acquire(dir).release();
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
  });

  it('takes over a lock left by a dead process', () => {
    writeFileSync(join(dir, 'serve.lock'), '999999999\n');
    const lock = DataDirLock.acquire(dir);
    expect(readFileSync(join(dir, 'serve.lock'), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('writes backend.json whole, owner-only, and removes it', () => {
    writeBackendInfo(dir, { url: 'http://127.0.0.1:1234', pid: 42 });
    expect(modeOf(join(dir, 'backend.json'))).toBe(0o600);
    expect(readBackendInfo(dir)).toEqual({ url: 'http://127.0.0.1:1234', pid: 42 });
    removeBackendInfo(dir);
    expect(readBackendInfo(dir)).toBeUndefined();
  });

  it('creates admin.token once with mode 0600 and reuses it', () => {
    const first = resolveAdminToken(dir, {});
    expect(first.length).toBeGreaterThanOrEqual(40);
    expect(statSync(join(dir, 'admin.token')).mode & 0o777).toBe(0o600);
    expect(resolveAdminToken(dir, {})).toBe(first);
  });

  it('prefers TOOLPORT_ADMIN_TOKEN and then creates no file', () => {
    expect(resolveAdminToken(dir, { TOOLPORT_ADMIN_TOKEN: 'from-env' })).toBe('from-env');
    expect(() => statSync(join(dir, 'admin.token'))).toThrow();
  });

  describe('makeDataDirPrivate', () => {
    it('creates a missing data dir 0700', () => {
      const fresh = join(dir, 'nested', 'data');
      expect(makeDataDirPrivate(fresh)).toEqual([]);
      expect(modeOf(fresh)).toBe(0o700);
    });

    it('tightens a data dir an operator made 0755, and the files in it, naming what it changed', () => {
      chmodSync(dir, 0o755);
      writeFileSync(join(dir, 'toolport.db'), '', { mode: 0o644 });
      mkdirSync(join(dir, 'plugins'), { mode: 0o755 });
      writeFileSync(join(dir, 'admin.token'), 'x\n', { mode: 0o600 });
      const tightened = makeDataDirPrivate(dir);
      expect(tightened.map((t) => [t.path, t.mode]).sort()).toEqual(
        [
          [dir, 0o755],
          [join(dir, 'plugins'), 0o755],
          [join(dir, 'toolport.db'), 0o644],
        ].sort(),
      );
      expect([modeOf(dir), modeOf(join(dir, 'toolport.db')), modeOf(join(dir, 'plugins'))]).toEqual([0o700, 0o600, 0o700]);
      expect(makeDataDirPrivate(dir)).toEqual([]);
    });

    it('refuses a data dir another user owns, naming both users', () => {
      chownSync(dir, 65534, 65534);
      expect(() => makeDataDirPrivate(dir, 0)).toThrow(DataDirNotPrivateError);
      expect(() => makeDataDirPrivate(dir, 0)).toThrow(`belongs to uid 65534, not to uid 0`);
    });

    it('refuses a data dir that is a file', () => {
      writeFileSync(join(dir, 'file'), '');
      expect(() => makeDataDirPrivate(join(dir, 'file'))).toThrow('is not a directory');
    });
  });

  it('creates the SQLite store owner-only, whatever the umask', async () => {
    const store = new SqlitePluginStore(join(dir, 'toolport.db'));
    await store.listSessions();
    await store.close();
    expect(modeOf(join(dir, 'toolport.db'))).toBe(0o600);
  });
});
