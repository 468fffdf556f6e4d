import { randomInt } from 'node:crypto';
import type { Server, ServerCredentials } from '@grpc/grpc-js';

/** The ports a plugin may bind: go-plugin's PLUGIN_MIN_PORT..PLUGIN_MAX_PORT, or any (port 0). */
export type PortRange = { min: number; max: number } | null;

/**
 * Reads PLUGIN_MIN_PORT and PLUGIN_MAX_PORT: a range only when both are set (as go-plugin reads them),
 * else null. Throws a message naming the variable when one is not a port or the range is empty.
 */
export function portRange(env: NodeJS.ProcessEnv): PortRange {
  const min = env.PLUGIN_MIN_PORT;
  const max = env.PLUGIN_MAX_PORT;
  if (min === undefined || min === '' || max === undefined || max === '') return null;
  const range = { min: port(min, 'PLUGIN_MIN_PORT'), max: port(max, 'PLUGIN_MAX_PORT') };
  if (range.min > range.max) throw new Error(`PLUGIN_MIN_PORT (${range.min}) is greater than PLUGIN_MAX_PORT (${range.max})`);
  return range;
}

function port(raw: string, name: string): number {
  if (!/^\d{1,5}$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > 65535) {
    throw new Error(`${name} must be a port number 1-65535, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/**
 * Binds `server` on 127.0.0.1: the first free port of `range`, starting at a random one so
 * plugins started together do not race for the same port, or port 0 without a range. Never
 * with port reuse: a port another process holds is skipped, not shared.
 */
export async function bindLoopback(server: Server, credentials: ServerCredentials, range: PortRange): Promise<number> {
  if (!range) return bindOnce(server, credentials, 0);
  const size = range.max - range.min + 1;
  const first = randomInt(size);
  for (let i = 0; i < size; i += 1) {
    const candidate = range.min + ((first + i) % size);
    try {
      return await bindOnce(server, credentials, candidate);
    } catch {
      // taken; try the next one
    }
  }
  throw new Error(`no free port on 127.0.0.1 between PLUGIN_MIN_PORT ${range.min} and PLUGIN_MAX_PORT ${range.max}`);
}

function bindOnce(server: Server, credentials: ServerCredentials, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${port}`, credentials, (error, bound) => (error ? reject(error) : resolve(bound)));
  });
}
