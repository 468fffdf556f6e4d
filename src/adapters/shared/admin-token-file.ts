import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin.token');
}

/**
 * The admin token: `TOOLPORT_ADMIN_TOKEN` when set, else `<data-dir>/admin.token`, created
 * once with mode 0600 and reused on every later start.
 */
export function resolveAdminToken(dataDir: string, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.TOOLPORT_ADMIN_TOKEN;
  if (fromEnv) return fromEnv;
  const path = adminTokenPath(dataDir);
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(32).toString('base64url');
  try {
    writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path, 'utf8').trim();
    throw error;
  }
  chmodSync(path, 0o600);
  return token;
}

/** The token a CLI should present: flag, then env, then the file (undefined when none). */
export function readAdminToken(dataDir: string): string | undefined {
  try {
    return readFileSync(adminTokenPath(dataDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
