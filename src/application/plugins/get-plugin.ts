import type { PluginRecords } from '../ports/plugin-records';
import { findPlugin } from './find-plugin';
import type { PluginView } from './plugin-view';
import type { PluginViews } from './plugin-views';

/** One installed plugin as the operator API shows it; NOT_FOUND otherwise. */
export class GetPlugin {
  constructor(
    private readonly store: PluginRecords,
    private readonly views: PluginViews,
  ) {}

  async execute(pluginId: string): Promise<PluginView> {
    return this.views.one(await findPlugin(this.store, pluginId));
  }
}
