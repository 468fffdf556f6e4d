import type { PluginRecords } from '../ports/plugin-records';
import type { ReplicaCopiesView } from '../replicas/replica-copies-view';
import type { Settings } from '../settings';
import { pluginView, type PluginView } from './plugin-view';

/** Every installed plugin, in install order, as the operator API shows it. */
export class ListPlugins {
  constructor(
    private readonly store: PluginRecords,
    private readonly settings: Settings,
    private readonly replicas?: ReplicaCopiesView,
  ) {}

  async execute(): Promise<PluginView[]> {
    const records = await this.store.listPlugins();
    const copies = await this.replicas?.of(records);
    return records.map((record) => pluginView(record, this.settings.toolPrefix, copies?.get(record.id)));
  }
}
