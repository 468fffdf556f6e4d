import type { PluginRecord } from '../../domain/plugin-record';
import type { Replication } from '../ports/replication';
import type { Settings } from '../settings';
import { pluginView, processFacts, type PluginView } from './plugin-view';
import type { RunningPlugins } from './running-plugins';

/**
 * Every record answer the operator API gives (list, one, and the answers of install, upgrade,
 * enable, disable and config), built one way: the record, the process serving it here (`pid`,
 * `tls`) and, on a store replicas share, each live replica's copy (docs/http-api.md §4).
 */
export class PluginViews {
  constructor(
    private readonly running: RunningPlugins,
    private readonly replication: Replication,
    private readonly settings: Settings,
  ) {}

  /** The record with this process's facts, without the replicas (the console's feed tells each commit at once). */
  local(record: PluginRecord): PluginView {
    return pluginView(record, this.settings.toolPrefix, processFacts(this.running.instanceOf(record.id)));
  }

  async one(record: PluginRecord): Promise<PluginView> {
    const [view] = await this.all([record]);
    return view!;
  }

  async all(records: readonly PluginRecord[]): Promise<PluginView[]> {
    const copies = await this.replication.copiesOf(records);
    return records.map((record) => pluginView(record, this.settings.toolPrefix, processFacts(this.running.instanceOf(record.id)), copies.get(record.id)));
  }
}
