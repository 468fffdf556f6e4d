import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RING_BOUNDS, type PluginLogRing, type RingBounds } from '../../application/logs/plugin-log-ring';
import { PluginLogRings } from '../../application/logs/plugin-log-rings';
import { PluginLogs, type PluginLogListener, type PluginLogRecord } from '../../application/ports/plugin-logs';
import { isPluginId } from '../../domain/manifest-validation';
import { parseKeptRecord } from './kept-record';
import { DEFAULT_ROTATION, RotatingLogFile, type RotationPolicy } from './rotating-log-file';

export interface FilePluginLogsOptions {
  ring?: RingBounds;
  rotation?: RotationPolicy;
}

/**
 * Each plugin's recent records in memory (bounded) and in `<dir>/<plugin id>.log` (JSON lines,
 * 0600, rotated by size). A plugin's ring starts with the tail of its file, so the records
 * from before a backend restart are still there. A file that cannot be written is given up
 * for this process: its records are then kept in memory only.
 */
export class FilePluginLogs extends PluginLogs {
  private readonly rings: PluginLogRings;
  private readonly files = new Map<string, RotatingLogFile | null>();
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly options: FilePluginLogsOptions = {},
  ) {
    super();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.rings = new PluginLogRings(options.ring, (pluginId, ring) => this.load(pluginId, ring));
  }

  append(record: PluginLogRecord): void {
    const line = JSON.stringify(record);
    this.rings.keep(record, Buffer.byteLength(line));
    const file = this.closed ? null : this.fileOf(record.plugin_id);
    if (!file) return;
    try {
      file.append(line);
    } catch {
      file.close();
      this.files.set(record.plugin_id, null);
    }
  }

  recent(pluginId: string, limit: number): PluginLogRecord[] {
    return this.rings.recent(pluginId, limit);
  }

  onRecord(listener: PluginLogListener): () => void {
    return this.rings.onRecord(listener);
  }

  close(): void {
    this.closed = true;
    for (const file of this.files.values()) file?.close();
  }

  /** The plugin's file; null for an id that cannot name a file safely (or whose file failed). */
  private fileOf(pluginId: string): RotatingLogFile | null {
    let file = this.files.get(pluginId);
    if (file === undefined) {
      file = isPluginId(pluginId) ? new RotatingLogFile(join(this.dir, `${pluginId}.log`), this.options.rotation ?? DEFAULT_ROTATION) : null;
      this.files.set(pluginId, file);
    }
    return file;
  }

  private load(pluginId: string, ring: PluginLogRing): void {
    const file = this.fileOf(pluginId);
    if (!file) return;
    const bounds = this.options.ring ?? DEFAULT_RING_BOUNDS;
    try {
      for (const line of file.tail(bounds.maxBytes)) {
        const record = parseKeptRecord(line, pluginId);
        if (record) ring.push(record, Buffer.byteLength(line));
      }
    } catch {
      // an unreadable file starts the ring empty; appending will tell whether it is writable
    }
  }
}
