import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SECRET_KEY_ENV = 'TOOLPORT_SECRET_KEY';
const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/** A secret key setting that cannot be used; the backend exits 2 with this message, which names it. */
export class SecretKeySettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeySettingError';
  }
}

/**
 * The 256-bit key that seals secrets (docs/plugin-protocol.md §13): `TOOLPORT_SECRET_KEY` (64 hex digits)
 * when set, else `<data-dir>/secret.key`, made at the first start on the data dir (mode 0600)
 * and read at every later one. A bad value is refused, never replaced: a new key would make
 * every stored secret unreadable.
 */
export function loadSecretKey(dataDir: string, env: NodeJS.ProcessEnv): Buffer {
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!HEX_KEY.test(fromEnv.trim()))
      throw new SecretKeySettingError(`${SECRET_KEY_ENV} must be 64 hex digits (a 256-bit key), got ${fromEnv.trim().length} characters`);
    return Buffer.from(fromEnv.trim(), 'hex');
  }
  const path = join(dataDir, 'secret.key');
  try {
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const text = readFileSync(path, 'utf8').trim();
  if (!HEX_KEY.test(text))
    throw new SecretKeySettingError(`${path} must hold 64 hex digits (a 256-bit key); restore it from a backup or set ${SECRET_KEY_ENV}`);
  return Buffer.from(text, 'hex');
}
