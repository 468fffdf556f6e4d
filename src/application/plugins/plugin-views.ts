import type { PluginRecord } from '../../domain/plugin-record';
import type { Replication } from '../ports/replication';
import type { Settings } from '../settings';
import type { PluginRuntime } from '../ports/plugin-runtime';
import { asksForNetwork, pluginView, processFacts, type PluginView, type ProcessFacts } from './plugin-view';
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
    private readonly runtime?: PluginRuntime,
  ) {}

  private facts(record: PluginRecord): ProcessFacts {
    const facts = processFacts(this.running.instanceOf(record.id));
    return this.runtime ? { ...facts, sandbox: this.runtime.sandboxFacts(record.id, asksForNetwork(record)) } : facts;
  }

  /** The record with this process's facts, without the replicas (the console's feed tells each commit at once). */
  local(record: PluginRecord): PluginView {
    return pluginView(record, this.settings.toolPrefix, this.facts(record));
  }

  async one(record: PluginRecord): Promise<PluginView> {
    const [view] = await this.all([record]);
    return view!;
  }

  async all(records: readonly PluginRecord[]): Promise<PluginView[]> {
    const copies = await this.replication.copiesOf(records);
    return records.map((record) => pluginView(record, this.settings.toolPrefix, this.facts(record), copies.get(record.id)));
  }
}
