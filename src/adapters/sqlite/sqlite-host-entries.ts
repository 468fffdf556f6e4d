import type Database from 'better-sqlite3';
import type { HostEntryWrite } from '../../application/ports/host-entries';
import type { SealedValue } from '../../application/ports/secret-box';

interface SealedRow {
  key_id: string;
  data: string;
}

/**
 * The configuration, state and secret rows of the SQLite store (schema step 6), as
 * synchronous steps: the store runs each on its queue, or inside an open transaction.
 */
export class SqliteHostEntries {
  private readonly s;

  constructor(private readonly db: Database.Database) {
    this.s = {
      pluginExists: db.prepare<[string], { found: number }>('SELECT 1 AS found FROM plugins WHERE id = ?'),
      getConfig: db.prepare<[string], SealedRow>('SELECT key_id, data FROM plugin_configs WHERE plugin_id = ?'),
      saveConfig: db.prepare<[string, string, string]>(
        'INSERT INTO plugin_configs (plugin_id, key_id, data) VALUES (?, ?, ?) ON CONFLICT (plugin_id) DO UPDATE SET key_id = excluded.key_id, data = excluded.data',
      ),
      getState: db.prepare<[string, string], { value_json: string }>('SELECT value_json FROM plugin_state WHERE plugin_id = ? AND key = ?'),
      hasState: db.prepare<[string, string], { found: number }>('SELECT 1 AS found FROM plugin_state WHERE plugin_id = ? AND key = ?'),
      countState: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM plugin_state WHERE plugin_id = ?'),
      putState: db.prepare<[string, string, string]>(
        'INSERT INTO plugin_state (plugin_id, key, value_json) VALUES (?, ?, ?) ON CONFLICT (plugin_id, key) DO UPDATE SET value_json = excluded.value_json',
      ),
      deleteState: db.prepare<[string, string]>('DELETE FROM plugin_state WHERE plugin_id = ? AND key = ?'),
      listState: db.prepare<{ plugin: string; prefix: string; after: string; length: number; limit: number }, { key: string }>(
        'SELECT key FROM plugin_state WHERE plugin_id = @plugin AND key >= @prefix AND key > @after AND substr(key, 1, @length) = @prefix ORDER BY key LIMIT @limit',
      ),
      getSecret: db.prepare<[string, string], SealedRow>('SELECT key_id, data FROM plugin_secrets WHERE plugin_id = ? AND key = ?'),
      hasSecret: db.prepare<[string, string], { found: number }>('SELECT 1 AS found FROM plugin_secrets WHERE plugin_id = ? AND key = ?'),
      countSecrets: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM plugin_secrets WHERE plugin_id = ?'),
      putSecret: db.prepare<[string, string, string, string]>(
        'INSERT INTO plugin_secrets (plugin_id, key, key_id, data) VALUES (?, ?, ?, ?) ON CONFLICT (plugin_id, key) DO UPDATE SET key_id = excluded.key_id, data = excluded.data',
      ),
      deleteSecret: db.prepare<[string, string]>('DELETE FROM plugin_secrets WHERE plugin_id = ? AND key = ?'),
      dropConfig: db.prepare<[string]>('DELETE FROM plugin_configs WHERE plugin_id = ?'),
      dropState: db.prepare<[string]>('DELETE FROM plugin_state WHERE plugin_id = ?'),
      dropSecrets: db.prepare<[string]>('DELETE FROM plugin_secrets WHERE plugin_id = ?'),
    };
  }

  getConfig(pluginId: string): SealedValue | undefined {
    return sealed(this.s.getConfig.get(pluginId));
  }

  saveConfig(pluginId: string, config: SealedValue): void {
    this.s.saveConfig.run(pluginId, config.keyId, config.data);
  }

  getState(pluginId: string, key: string): string | undefined {
    return this.s.getState.get(pluginId, key)?.value_json;
  }

  putState(pluginId: string, key: string, valueJson: string, maxKeys: number): HostEntryWrite {
    return this.db.transaction((): HostEntryWrite => {
      const refusal = this.refusal(
        pluginId,
        maxKeys,
        () => this.s.hasState.get(pluginId, key),
        () => this.s.countState.get(pluginId)!.n,
      );
      if (refusal) return refusal;
      this.s.putState.run(pluginId, key, valueJson);
      return 'stored';
    })();
  }

  deleteState(pluginId: string, key: string): boolean {
    return this.s.deleteState.run(pluginId, key).changes > 0;
  }

  listStateKeys(pluginId: string, prefix: string, after: string | undefined, limit: number): string[] {
    return this.s.listState.all({ plugin: pluginId, prefix, after: after ?? '', length: prefix.length, limit }).map((row) => row.key);
  }

  getSecret(pluginId: string, key: string): SealedValue | undefined {
    return sealed(this.s.getSecret.get(pluginId, key));
  }

  putSecret(pluginId: string, key: string, value: SealedValue, maxKeys: number): HostEntryWrite {
    return this.db.transaction((): HostEntryWrite => {
      const refusal = this.refusal(
        pluginId,
        maxKeys,
        () => this.s.hasSecret.get(pluginId, key),
        () => this.s.countSecrets.get(pluginId)!.n,
      );
      if (refusal) return refusal;
      this.s.putSecret.run(pluginId, key, value.keyId, value.data);
      return 'stored';
    })();
  }

  deleteSecret(pluginId: string, key: string): boolean {
    return this.s.deleteSecret.run(pluginId, key).changes > 0;
  }

  /** Everything kept for a plugin, dropped with its record (uninstall). */
  dropPlugin(pluginId: string): void {
    this.s.dropConfig.run(pluginId);
    this.s.dropState.run(pluginId);
    this.s.dropSecrets.run(pluginId);
  }

  private refusal(pluginId: string, maxKeys: number, exists: () => unknown, count: () => number): HostEntryWrite | null {
    if (!this.s.pluginExists.get(pluginId)) return 'no_plugin';
    if (!exists() && count() >= maxKeys) return 'limit_reached';
    return null;
  }
}

function sealed(row: SealedRow | undefined): SealedValue | undefined {
  return row && { keyId: row.key_id, data: row.data };
}
