import { randomBytes } from 'node:crypto';
import { chmodSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Server, ServerCredentials } from '@grpc/grpc-js';

/**
 * A unix socket path stays under 100 bytes: the kernel takes 108 at most, and the host (like
 * go-plugin hosts) counts on socket paths under 100 when it chooses each start's folder.
 */
const MAX_SOCKET_PATH_BYTES = 99;
/** `plugin-` and 8 hex digits: as short as go-plugin's `plugin` and 9 or 10 digits. */
const SOCKET_NAME_PATTERN = 'plugin-00000000';
/** A fresh random name that is taken already is tried again, a few times. */
const ATTEMPTS = 5;

/**
 * Reads PLUGIN_UNIX_SOCKET_DIR, go-plugin's folder for the plugin's socket (a sandboxed
 * plugin gets its private TMPDIR there): null when unset or empty. Throws a message naming the
 * variable when it is not an absolute path, is too long for a socket path under 100 bytes, or
 * names no folder.
 */
export function unixSocketDir(env: NodeJS.ProcessEnv): string | null {
  const dir = env.PLUGIN_UNIX_SOCKET_DIR;
  if (dir === undefined || dir === '') return null;
  if (!isAbsolute(dir)) throw new Error(`PLUGIN_UNIX_SOCKET_DIR must be an absolute path, got ${JSON.stringify(dir)}`);
  const bytes = Buffer.byteLength(join(dir, SOCKET_NAME_PATTERN));
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`PLUGIN_UNIX_SOCKET_DIR is too long: a socket path in it would take ${bytes} bytes (at most ${MAX_SOCKET_PATH_BYTES})`);
  }
  // Checked here because a missing folder reaches the bind as a puzzling EACCES.
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`PLUGIN_UNIX_SOCKET_DIR names no folder: ${dir}`);
  return dir;
}

/**
 * Binds `server` on a unix socket `plugin-<8 hex>` in `dir` (a new name each start, as
 * go-plugin's `plugin<digits>`, so a socket a killed start left behind is never in the way) and
 * resolves its path. The socket is made mode 0600 before anyone is told where it is; until
 * then (between bind and chmod) the folder's own privacy keeps other users out, which is why
 * the host passes a folder only the plugin's user can open. grpc-js removes the file when the
 * server shuts down.
 */
export async function bindUnixSocket(server: Server, credentials: ServerCredentials, dir: string): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const path = join(dir, `plugin-${randomBytes(4).toString('hex')}`); // SOCKET_NAME_PATTERN's length
    try {
      await bindOnce(server, credentials, path);
    } catch (error) {
      if (attempt < ATTEMPTS && /EADDRINUSE/.test(String(error))) continue;
      throw new Error(`cannot listen on a unix socket in PLUGIN_UNIX_SOCKET_DIR ${dir}: ${reason(error)}`);
    }
    chmodSync(path, 0o600);
    return path;
  }
}

function bindOnce(server: Server, credentials: ServerCredentials, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`unix:${path}`, credentials, (error) => (error ? reject(error) : resolve()));
  });
}

/** grpc-js wraps the system's error in a sentence of its own: keep the system's (`listen EACCES: permission denied …`). */
function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return /\[([^\]]+)\]/.exec(text)?.[1] ?? text;
}
