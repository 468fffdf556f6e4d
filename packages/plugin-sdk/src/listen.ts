import type { Server, ServerCredentials } from '@grpc/grpc-js';
import { bindLoopback, portRange, type PortRange } from './bind-loopback';
import { bindUnixSocket, unixSocketDir } from './bind-unix-socket';
import type { ServedAddress } from './types';

/** Where the host's variables ask the plugin to listen. */
export type ListenPlan = { network: 'unix'; dir: string } | { network: 'tcp'; range: PortRange };

/**
 * A unix socket in PLUGIN_UNIX_SOCKET_DIR when the host set it (a sandboxed plugin has no
 * network to listen on: the host expects a `unix` handshake from it), else 127.0.0.1 as
 * PLUGIN_MIN_PORT..PLUGIN_MAX_PORT allow. Throws a message naming the variable that is wrong.
 */
export function listenPlan(env: NodeJS.ProcessEnv): ListenPlan {
  const dir = unixSocketDir(env);
  return dir !== null ? { network: 'unix', dir } : { network: 'tcp', range: portRange(env) };
}

/** Binds `server` as `plan` says and resolves the address the handshake prints (and the TCP port, 0 on a socket). */
export async function listen(server: Server, credentials: ServerCredentials, plan: ListenPlan): Promise<{ address: ServedAddress; port: number }> {
  if (plan.network === 'unix') {
    return { address: { network: 'unix', address: await bindUnixSocket(server, credentials, plan.dir) }, port: 0 };
  }
  const port = await bindLoopback(server, credentials, plan.range);
  return { address: { network: 'tcp', address: `127.0.0.1:${port}` }, port };
}
