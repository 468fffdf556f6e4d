import type { RingBounds } from '../../application/logs/plugin-log-ring';
import { PluginLogRings } from '../../application/logs/plugin-log-rings';
import { PluginLogs, type PluginLogListener, type PluginLogRecord } from '../../application/ports/plugin-logs';

/** Each plugin's recent records in memory only (the default of the in-process backend). */
export class InMemoryPluginLogs extends PluginLogs {
  private readonly rings: PluginLogRings;

  constructor(bounds?: RingBounds) {
    super();
    this.rings = new PluginLogRings(bounds);
  }

  append(record: PluginLogRecord): void {
    this.rings.keep(record, Buffer.byteLength(JSON.stringify(record)));
  }

  recent(pluginId: string, limit: number): PluginLogRecord[] {
    return this.rings.recent(pluginId, limit);
  }

  onRecord(listener: PluginLogListener): () => void {
    return this.rings.onRecord(listener);
  }

  close(): void {}
}
