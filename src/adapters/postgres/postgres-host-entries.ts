import type { ClientBase } from 'pg';
import type { HostEntryWrite } from '../../application/ports/host-entries';
import type { WorkspaceConfig } from '../../application/ports/plugin-records';
import type { SealedValue } from '../../application/ports/secret-box';
import type { EntryOwner } from '../../domain/host-entry-owner';
import { inTransaction } from './postgres-locks';

type Rows = Record<string, unknown>[];

/**
 * Schema step 3: configuration (sealed whole), Host state and plugin secrets (sealed per key).
 * Step 9 adds each entry's owner (scope, scope id) to its key, and the workspace overrides.
 */
export const HOST_ENTRIES_SCHEMA = `
  CREATE TABLE plugin_configs (
    plugin_id text PRIMARY KEY,
    key_id    text NOT NULL,
    data      text NOT NULL
  );
  -- Keys compare by their bytes (the C collation), the order ListState pages in; the value is
  -- the JSON text exactly as it was put.
  CREATE TABLE plugin_state (
    plugin_id  text NOT NULL,
    key        text COLLATE "C" NOT NULL,
    value_json text NOT NULL,
    PRIMARY KEY (plugin_id, key)
  );
  CREATE TABLE plugin_secrets (
    plugin_id text NOT NULL,
    key       text COLLATE "C" NOT NULL,
    key_id    text NOT NULL,
    data      text NOT NULL,
    PRIMARY KEY (plugin_id, key)
  );
`;

function sealed(rows: Rows): SealedValue | undefined {
  const [row] = rows;
  return row && { keyId: row.key_id as string, data: row.data as string };
}

/** An owner's columns, `$1`–`$3` of every statement on state or secret rows. */
const OWNER = 'plugin_id = $1 AND scope = $2 AND scope_id = $3';

function ownerValues(owner: EntryOwner): string[] {
  return [owner.pluginId, owner.scope, owner.scopeId];
}

/** The table and the columns a key's value goes in, for each kind of Host key. */
const KINDS = {
  state: { table: 'plugin_state', columns: ['value_json'] },
  secret: { table: 'plugin_secrets', columns: ['key_id', 'data'] },
} as const;

/**
 * The configuration, state and secret rows of the PostgreSQL store, over whatever connection
 * the caller holds: a pooled one for a call on its own, the transaction's for tx.getConfig.
 */
export const hostEntries = {
  async getConfig(client: ClientBase, pluginId: string): Promise<SealedValue | undefined> {
    return sealed((await client.query('SELECT key_id, data FROM plugin_configs WHERE plugin_id = $1', [pluginId])).rows);
  },

  async saveConfig(client: ClientBase, pluginId: string, config: SealedValue): Promise<void> {
    await client.query(
      'INSERT INTO plugin_configs (plugin_id, key_id, data) VALUES ($1, $2, $3) ON CONFLICT (plugin_id) DO UPDATE SET key_id = excluded.key_id, data = excluded.data',
      [pluginId, config.keyId, config.data],
    );
  },

  async getWorkspaceConfig(client: ClientBase, pluginId: string, workspaceId: string): Promise<SealedValue | undefined> {
    const { rows } = await client.query('SELECT key_id, data FROM plugin_workspace_configs WHERE plugin_id = $1 AND workspace_id = $2', [
      pluginId,
      workspaceId,
    ]);
    return sealed(rows);
  },

  async saveWorkspaceConfig(client: ClientBase, pluginId: string, workspaceId: string, config: SealedValue | null): Promise<void> {
    if (!config) {
      await client.query('DELETE FROM plugin_workspace_configs WHERE plugin_id = $1 AND workspace_id = $2', [pluginId, workspaceId]);
      return;
    }
    await client.query(
      `INSERT INTO plugin_workspace_configs (plugin_id, workspace_id, key_id, data) VALUES ($1, $2, $3, $4)
       ON CONFLICT (plugin_id, workspace_id) DO UPDATE SET key_id = excluded.key_id, data = excluded.data`,
      [pluginId, workspaceId, config.keyId, config.data],
    );
  },

  async listWorkspaceConfigs(client: ClientBase, pluginId: string): Promise<WorkspaceConfig[]> {
    const { rows } = await client.query('SELECT workspace_id, key_id, data FROM plugin_workspace_configs WHERE plugin_id = $1 ORDER BY workspace_id', [
      pluginId,
    ]);
    return rows.map((row) => ({ workspaceId: row.workspace_id as string, config: { keyId: row.key_id as string, data: row.data as string } }));
  },

  async getState(client: ClientBase, owner: EntryOwner, key: string): Promise<string | undefined> {
    const { rows } = await client.query(`SELECT value_json FROM plugin_state WHERE ${OWNER} AND key = $4`, [...ownerValues(owner), key]);
    return rows[0]?.value_json as string | undefined;
  },

  async getSecret(client: ClientBase, owner: EntryOwner, key: string): Promise<SealedValue | undefined> {
    return sealed((await client.query(`SELECT key_id, data FROM plugin_secrets WHERE ${OWNER} AND key = $4`, [...ownerValues(owner), key])).rows);
  },

  /** Removes `key` of that kind; answers whether it existed. */
  async deleteKey(client: ClientBase, kind: keyof typeof KINDS, owner: EntryOwner, key: string): Promise<boolean> {
    const { rowCount } = await client.query(`DELETE FROM ${KINDS[kind].table} WHERE ${OWNER} AND key = $4`, [...ownerValues(owner), key]);
    return (rowCount ?? 0) > 0;
  },

  async listStateKeys(client: ClientBase, owner: EntryOwner, prefix: string, after: string | undefined, limit: number): Promise<string[]> {
    const { rows } = await client.query(
      `SELECT key FROM plugin_state WHERE ${OWNER} AND key >= $4 AND starts_with(key, $4) AND key > $5 ORDER BY key LIMIT $6`,
      [...ownerValues(owner), prefix, after ?? '', limit],
    );
    return rows.map((row) => row.key as string);
  },

  /**
   * Inserts or replaces a key in its own transaction. The plugin's entries lock makes the
   * count and the write one step across backends; the record is share-locked, so an uninstall
   * either waits for this write (and then removes it) or has already removed the record.
   */
  putKey(client: ClientBase, kind: keyof typeof KINDS, owner: EntryOwner, key: string, values: string[], maxKeys: number): Promise<HostEntryWrite> {
    const { table, columns } = KINDS[kind];
    return inTransaction(client, { entriesOf: owner.pluginId }, async () => {
      const plugin = await client.query('SELECT 1 FROM plugins WHERE id = $1 FOR KEY SHARE', [owner.pluginId]);
      if (plugin.rowCount === 0) return 'no_plugin';
      const { rows } = await client.query<{ n: number; has: boolean }>(`SELECT count(*)::int AS n, bool_or(key = $4) AS has FROM ${table} WHERE ${OWNER}`, [
        ...ownerValues(owner),
        key,
      ]);
      if (!rows[0].has && rows[0].n >= maxKeys) return 'limit_reached';
      const placeholders = columns.map((_, i) => `$${i + 5}`).join(', ');
      const updates = columns.map((c) => `${c} = excluded.${c}`).join(', ');
      await client.query(
        `INSERT INTO ${table} (plugin_id, scope, scope_id, key, ${columns.join(', ')}) VALUES ($1, $2, $3, $4, ${placeholders})
         ON CONFLICT (plugin_id, scope, scope_id, key) DO UPDATE SET ${updates}`,
        [...ownerValues(owner), key, ...values],
      );
      return 'stored';
    });
  },

  /** Everything kept for a plugin, removed with its record (uninstall), in the caller's transaction. */
  async dropPlugin(client: ClientBase, pluginId: string): Promise<void> {
    for (const table of ['plugin_configs', 'plugin_workspace_configs', 'plugin_state', 'plugin_secrets']) {
      await client.query(`DELETE FROM ${table} WHERE plugin_id = $1`, [pluginId]);
    }
  },
};
