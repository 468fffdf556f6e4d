import { ToolportError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { StoreTransaction } from '../ports/plugin-records';

/** The record for `id`, or ToolportError NOT_FOUND. */
export async function findPlugin(records: Pick<StoreTransaction, 'getPlugin'>, id: string): Promise<PluginRecord> {
  const record = await records.getPlugin(id);
  if (!record) throw new ToolportError('NOT_FOUND', `no plugin "${id}" is installed`);
  return record;
}
