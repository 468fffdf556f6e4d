import { sameScope, type PluginScope } from '../../domain/scopes';
import type { CatalogService } from '../catalog/catalog-service';
import type { Logger } from '../ports/logger';
import type { PluginRecords } from '../ports/plugin-records';
import { readScopeChange } from './plugin-scope-read';

export interface SetPluginScopeInput {
  pluginId: string;
  /** The whole scope as the operator sent it: `{"workspaces", "disabled_tools"}`. */
  body: unknown;
}

/**
 * Replaces a plugin's scope (docs/catalog-and-sessions.md, "Scopes") and answers it as stored.
 * A malformed body or a tool the plugin does not declare is SCOPE_INVALID with every violation;
 * NOT_FOUND for a plugin that is not installed. The scope already stored is a no-op (no commit,
 * the revision unchanged); any other is one commit that raises the catalog revision by one.
 */
export class SetPluginScope {
  constructor(
    private readonly records: PluginRecords,
    private readonly catalog: CatalogService,
    private readonly logger: Logger,
  ) {}

  async execute(input: SetPluginScopeInput): Promise<PluginScope> {
    const { pluginId, body } = input;
    const first = await this.records.transaction((tx) => readScopeChange(tx, pluginId, body));
    if (sameScope(first.sent, first.stored)) return first.sent;
    // Read again in the commit: the plugin may have been upgraded or uninstalled meanwhile.
    const changed = await this.catalog.commit(async (tx) => {
      const { stored, sent } = await readScopeChange(tx, pluginId, body);
      if (sameScope(sent, stored)) return { scope: sent, saved: false };
      await tx.savePluginScope(pluginId, sent);
      return { scope: sent, saved: true };
    });
    if (changed.saved) this.logger.info({ plugin_id: pluginId, revision: this.catalog.current().revision }, 'plugin scope changed');
    return changed.scope;
  }
}
