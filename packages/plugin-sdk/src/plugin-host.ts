import { connectHost } from './host-client';
import type { PluginHost } from './host-types';

let shared: PluginHost | undefined;

/**
 * This process's host (CONTRACT §10), the same one every tool handler gets as
 * `context.host`: for start-up work such as checking the configured credentials before
 * `serve()`. Connects on the first call.
 */
export function pluginHost(): PluginHost {
  shared ??= connectHost(process.env);
  return shared;
}
