import type { PluginStore } from '../ports/plugin-store';
import type { Settings } from '../settings';
import { pluginView, type PluginView } from './plugin-view';

/** Every installed plugin, in install order, as the operator API shows it. */
export class ListPlugins {
  constructor(
    private readonly store: PluginStore,
    private readonly settings: Settings,
  ) {}

  async execute(): Promise<PluginView[]> {
    return (await this.store.listPlugins()).map((record) => pluginView(record, this.settings.toolPrefix));
  }
}
