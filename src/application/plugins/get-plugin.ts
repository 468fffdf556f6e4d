import type { PluginRecords } from '../ports/plugin-records';
import type { Replication } from '../ports/replication';
import type { Settings } from '../settings';
import { findPlugin } from './find-plugin';
import { pluginView, type PluginView } from './plugin-view';

/** One installed plugin as the operator API shows it; NOT_FOUND otherwise. */
export class GetPlugin {
  constructor(
    private readonly store: PluginRecords,
    private readonly replication: Replication,
    private readonly settings: Settings,
  ) {}

  async execute(pluginId: string): Promise<PluginView> {
    const record = await findPlugin(this.store, pluginId);
    const copies = await this.replication.copiesOf([record]);
    return pluginView(record, this.settings.toolPrefix, copies.get(record.id));
  }
}
