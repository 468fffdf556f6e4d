import type { PluginRecords } from '../ports/plugin-records';
import type { Replication } from '../ports/replication';
import type { Settings } from '../settings';
import { pluginView, type PluginView } from './plugin-view';

/** Every installed plugin, in install order, as the operator API shows it. */
export class ListPlugins {
  constructor(
    private readonly store: PluginRecords,
    private readonly replication: Replication,
    private readonly settings: Settings,
  ) {}

  async execute(): Promise<PluginView[]> {
    const records = await this.store.listPlugins();
    const copies = await this.replication.copiesOf(records);
    return records.map((record) => pluginView(record, this.settings.toolPrefix, copies.get(record.id)));
  }
}
