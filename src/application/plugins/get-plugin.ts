import type { PluginStore } from '../ports/plugin-store';
import type { Settings } from '../settings';
import { findPlugin } from './find-plugin';
import { pluginView, type PluginView } from './plugin-view';

/** One installed plugin as the operator API shows it; NOT_FOUND otherwise. */
export class GetPlugin {
  constructor(
    private readonly store: PluginStore,
    private readonly settings: Settings,
  ) {}

  async execute(pluginId: string): Promise<PluginView> {
    return pluginView(await findPlugin(this.store, pluginId), this.settings.toolPrefix);
  }
}
