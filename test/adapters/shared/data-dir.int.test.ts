import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveAdminToken } from '../../../src/adapters/shared/admin-token-file';
import { readBackendInfo, removeBackendInfo, writeBackendInfo } from '../../../src/adapters/shared/backend-info-file';
import { DataDirLock, DataDirLockedError } from '../../../src/adapters/shared/data-dir-lock';

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

  it('writes backend.json whole and removes it', () => {
    writeBackendInfo(dir, { url: 'http://127.0.0.1:1234', pid: 42 });
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
});
