import type { PluginLogRecord } from '../ports/plugin-logs';

/** How much of one plugin's log is kept in memory: whichever bound is reached first. */
export interface RingBounds {
  maxRecords: number;
  maxBytes: number;
}

export const DEFAULT_RING_BOUNDS: RingBounds = { maxRecords: 1000, maxBytes: 1024 * 1024 };

/**
 * One plugin's most recent records, oldest dropped first once either bound is passed. The size
 * of a record is the length of its JSON line, which the caller already has.
 */
export class PluginLogRing {
  private entries: Array<{ record: PluginLogRecord; bytes: number }> = [];
  private start = 0;
  private bytes = 0;

  constructor(private readonly bounds: RingBounds = DEFAULT_RING_BOUNDS) {}

  push(record: PluginLogRecord, bytes: number): void {
    this.entries.push({ record, bytes });
    this.bytes += bytes;
    while (this.size() > this.bounds.maxRecords || (this.bytes > this.bounds.maxBytes && this.size() > 1)) {
      this.bytes -= this.entries[this.start].bytes;
      this.start += 1;
    }
    // Drop the dead head now and then instead of shifting the array on every push.
    if (this.start > this.bounds.maxRecords) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
  }

  /** The last `limit` records, oldest first. */
  last(limit: number): PluginLogRecord[] {
    const from = Math.max(this.start, this.entries.length - limit);
    return this.entries.slice(from).map((entry) => entry.record);
  }

  size(): number {
    return this.entries.length - this.start;
  }
}
