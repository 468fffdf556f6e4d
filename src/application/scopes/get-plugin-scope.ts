import { scopeOf, type PluginScope } from '../../domain/scopes';
import type { PluginRecords } from '../ports/plugin-records';
import { findPlugin } from '../plugins/find-plugin';

/** An installed plugin's scope (docs/catalog-and-sessions.md, "Scopes"), the default one when none was set; NOT_FOUND otherwise. */
export class GetPluginScope {
  constructor(private readonly records: PluginRecords) {}

  execute(pluginId: string): Promise<PluginScope> {
    return this.records.transaction(async (tx) => {
      await findPlugin(tx, pluginId);
      return scopeOf(await tx.catalogPolicy(), pluginId);
    });
  }
}
