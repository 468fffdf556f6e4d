import type { ClientBase } from 'pg';
import type { HostEntryWrite } from '../../application/ports/host-entries';
import type { SealedValue } from '../../application/ports/secret-box';
import { inTransaction } from './postgres-locks';

type Rows = Record<string, unknown>[];

/** Schema step 3: configuration (sealed whole), Host state and plugin secrets (sealed per key). */
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

  async getState(client: ClientBase, pluginId: string, key: string): Promise<string | undefined> {
    const { rows } = await client.query('SELECT value_json FROM plugin_state WHERE plugin_id = $1 AND key = $2', [pluginId, key]);
    return rows[0]?.value_json as string | undefined;
  },

  async getSecret(client: ClientBase, pluginId: string, key: string): Promise<SealedValue | undefined> {
    return sealed((await client.query('SELECT key_id, data FROM plugin_secrets WHERE plugin_id = $1 AND key = $2', [pluginId, key])).rows);
  },

  /** Removes `key` of that kind; answers whether it existed. */
  async deleteKey(client: ClientBase, kind: keyof typeof KINDS, pluginId: string, key: string): Promise<boolean> {
    const { rowCount } = await client.query(`DELETE FROM ${KINDS[kind].table} WHERE plugin_id = $1 AND key = $2`, [pluginId, key]);
    return (rowCount ?? 0) > 0;
  },

  async listStateKeys(client: ClientBase, pluginId: string, prefix: string, after: string | undefined, limit: number): Promise<string[]> {
    const { rows } = await client.query(
      'SELECT key FROM plugin_state WHERE plugin_id = $1 AND key >= $2 AND starts_with(key, $2) AND key > $3 ORDER BY key LIMIT $4',
      [pluginId, prefix, after ?? '', limit],
    );
    return rows.map((row) => row.key as string);
  },

  /**
   * Inserts or replaces a key in its own transaction. The plugin's entries lock makes the
   * count and the write one step across backends; the record is share-locked, so an uninstall
   * either waits for this write (and then removes it) or has already removed the record.
   */
  putKey(client: ClientBase, kind: keyof typeof KINDS, pluginId: string, key: string, values: string[], maxKeys: number): Promise<HostEntryWrite> {
    const { table, columns } = KINDS[kind];
    return inTransaction(client, { entriesOf: pluginId }, async () => {
      const plugin = await client.query('SELECT 1 FROM plugins WHERE id = $1 FOR KEY SHARE', [pluginId]);
      if (plugin.rowCount === 0) return 'no_plugin';
      const { rows } = await client.query<{ n: number; has: boolean }>(
        `SELECT count(*)::int AS n, bool_or(key = $2) AS has FROM ${table} WHERE plugin_id = $1`,
        [pluginId, key],
      );
      if (!rows[0].has && rows[0].n >= maxKeys) return 'limit_reached';
      const placeholders = columns.map((_, i) => `$${i + 3}`).join(', ');
      const updates = columns.map((c) => `${c} = excluded.${c}`).join(', ');
      await client.query(
        `INSERT INTO ${table} (plugin_id, key, ${columns.join(', ')}) VALUES ($1, $2, ${placeholders}) ON CONFLICT (plugin_id, key) DO UPDATE SET ${updates}`,
        [pluginId, key, ...values],
      );
      return 'stored';
    });
  },

  /** Everything kept for a plugin, removed with its record (uninstall), in the caller's transaction. */
  async dropPlugin(client: ClientBase, pluginId: string): Promise<void> {
    for (const table of ['plugin_configs', 'plugin_state', 'plugin_secrets']) {
      await client.query(`DELETE FROM ${table} WHERE plugin_id = $1`, [pluginId]);
    }
  },
};
