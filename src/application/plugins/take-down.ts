import type { PluginRuntime } from '../ports/plugin-runtime';
import type { RunningPlugins } from './running-plugins';

/**
 * Refuses new calls to the plugin at once (no serving instance any more), cancels its calls
 * in flight with CANCELLED_BY_LIFECYCLE, then stops its process.
 */
export async function takeDown(running: RunningPlugins, runtime: PluginRuntime, pluginId: string): Promise<void> {
  const instance = running.release(pluginId);
  running.cancel(pluginId);
  if (instance) await runtime.stop(instance);
}
