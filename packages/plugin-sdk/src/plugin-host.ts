import { HostConnection } from './host-client';
import type { PluginHost } from './host-types';

let shared: HostConnection | undefined;

/** This process's one connection to its host (made on first use, from the environment). */
export function hostConnection(): HostConnection {
  shared ??= new HostConnection(process.env);
  return shared;
}

/**
 * This process's host with instance access (see docs/plugin-protocol.md, the Host API): the
 * plugin's configuration, state and secrets, for start-up work such as checking the configured
 * credentials before `serve()`. Tool handlers get `context.host`, which shares its connection
 * and adds the call's workspace and task. Connects on the first call.
 */
export function pluginHost(): PluginHost {
  return hostConnection().instance;
}
