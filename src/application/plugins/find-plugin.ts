import { ToolportError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { PluginStore } from '../ports/plugin-store';

/** The record for `id`, or ToolportError NOT_FOUND. */
export function findPlugin(store: PluginStore, id: string): PluginRecord {
  const record = store.getPlugin(id);
  if (!record) throw new ToolportError('NOT_FOUND', `no plugin "${id}" is installed`);
  return record;
}
