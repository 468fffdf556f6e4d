import type { PluginLogListener, PluginLogRecord } from '../ports/plugin-logs';
import { DEFAULT_RING_BOUNDS, PluginLogRing, type RingBounds } from './plugin-log-ring';

/**
 * What every PluginLogs adapter keeps in memory: one bounded ring per plugin and the
 * listeners told of each record. `fill` runs once per ring when it is made, so a durable
 * adapter can load what an earlier process kept.
 */
export class PluginLogRings {
  private readonly rings = new Map<string, PluginLogRing>();
  private readonly listeners = new Set<PluginLogListener>();

  constructor(
    private readonly bounds: RingBounds = DEFAULT_RING_BOUNDS,
    private readonly fill: (pluginId: string, ring: PluginLogRing) => void = () => undefined,
  ) {}

  /** Keeps `record` (its JSON line is `bytes` long) and tells each listener; a listener's fault is dropped. */
  keep(record: PluginLogRecord, bytes: number): void {
    this.ringOf(record.plugin_id).push(record, bytes);
    for (const listener of [...this.listeners]) {
      try {
        listener(record);
      } catch {
        // a watcher's fault must never reach the code that logged
      }
    }
  }

  recent(pluginId: string, limit: number): PluginLogRecord[] {
    return this.ringOf(pluginId).last(limit);
  }

  onRecord(listener: PluginLogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private ringOf(pluginId: string): PluginLogRing {
    let ring = this.rings.get(pluginId);
    if (!ring) {
      ring = new PluginLogRing(this.bounds);
      this.rings.set(pluginId, ring);
      this.fill(pluginId, ring);
    }
    return ring;
  }
}
