/** The level words of a kept record (pino's numeric levels are turned into these). */
export type PluginLogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * One log record the backend wrote about a plugin, as it wrote it: its time, level and message,
 * the plugin's id, and its other fields (never tool arguments or results, never a secret).
 */
export interface PluginLogRecord {
  time: string;
  level: PluginLogLevel;
  msg: string;
  plugin_id: string;
  [field: string]: unknown;
}

export type PluginLogListener = (record: PluginLogRecord) => void;

/**
 * Each plugin's recent log records, kept by the backend: bounded per plugin (oldest dropped),
 * and, for the file adapter, also appended to a rotated file that outlives the process.
 */
export abstract class PluginLogs {
  /**
   * Keeps one record and tells every listener. Never throws and never logs: it is called from
   * inside the logger, so a failure to keep a record must not become another record.
   */
  abstract append(record: PluginLogRecord): void;

  /** The plugin's last `limit` records (limit ≥ 1), oldest first; empty for an id never seen. */
  abstract recent(pluginId: string, limit: number): PluginLogRecord[];

  /** Registers a listener for every record kept from now on; returns the remover. */
  abstract onRecord(listener: PluginLogListener): () => void;

  /** Writes out and releases what it holds open; later appends are kept in memory only. */
  abstract close(): void;
}
