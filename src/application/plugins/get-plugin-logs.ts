import type { PluginLogRecord, PluginLogs } from '../ports/plugin-logs';
import type { PluginRecords } from '../ports/plugin-records';
import { findPlugin } from './find-plugin';

/** The most records one answer holds: a plugin's ring keeps no more. */
export const MAX_LOG_RECORDS = 1000;

/** An installed plugin's recent log records, oldest first (`limit` of them, at most 1000); NOT_FOUND otherwise. */
export class GetPluginLogs {
  constructor(
    private readonly store: PluginRecords,
    private readonly logs: PluginLogs,
  ) {}

  async execute(pluginId: string, limit: number): Promise<PluginLogRecord[]> {
    await findPlugin(this.store, pluginId);
    return this.logs.recent(pluginId, Math.min(Math.max(1, limit), MAX_LOG_RECORDS));
  }
}
