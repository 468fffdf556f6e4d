import type { PluginRecords } from '../ports/plugin-records';
import type { PluginView } from './plugin-view';
import type { PluginViews } from './plugin-views';

/** Every installed plugin, in install order, as the operator API shows it. */
export class ListPlugins {
  constructor(
    private readonly store: PluginRecords,
    private readonly views: PluginViews,
  ) {}

  async execute(): Promise<PluginView[]> {
    return this.views.all(await this.store.listPlugins());
  }
}
