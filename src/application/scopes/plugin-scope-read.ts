import { readPluginScope } from '../../domain/scope-validation';
import { scopeOf, type PluginScope } from '../../domain/scopes';
import type { StoreTransaction } from '../ports/plugin-records';
import { findPlugin } from '../plugins/find-plugin';

/** The scope stored for an installed plugin (NOT_FOUND for another id), and what `body` would replace it with. */
export async function readScopeChange(
  tx: Pick<StoreTransaction, 'getPlugin' | 'catalogPolicy'>,
  pluginId: string,
  body: unknown,
): Promise<{ stored: PluginScope; sent: PluginScope }> {
  const record = await findPlugin(tx, pluginId);
  const stored = scopeOf(await tx.catalogPolicy(), pluginId);
  // Checked against the installed version's tools: the one its process serves.
  const declared = record.manifest.agent_tools.map((tool) => tool.name);
  return { stored, sent: readPluginScope(body, declared, stored) };
}
