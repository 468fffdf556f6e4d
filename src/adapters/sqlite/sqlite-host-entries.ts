import type Database from 'better-sqlite3';
import type { HostEntryWrite } from '../../application/ports/host-entries';
import type { WorkspaceConfig } from '../../application/ports/plugin-records';
import type { SealedValue } from '../../application/ports/secret-box';
import type { EntryOwner } from '../../domain/host-entry-owner';

interface SealedRow {
  key_id: string;
  data: string;
}

/** An owner's columns, the first three of every state and secret row's key. */
interface OwnerParams {
  plugin: string;
  scope: string;
  scope_id: string;
}

const OWNER = 'plugin_id = @plugin AND scope = @scope AND scope_id = @scope_id';

function ownerParams(owner: EntryOwner): OwnerParams {
  return { plugin: owner.pluginId, scope: owner.scope, scope_id: owner.scopeId };
}

/**
 * The configuration, state and secret rows of the SQLite store (schema steps 6 and 11), as
 * synchronous steps: the store runs each on its queue, or inside an open transaction.
 */
export class SqliteHostEntries {
  private readonly s;

  constructor(private readonly db: Database.Database) {
    type Keyed = OwnerParams & { key: string };
    this.s = {
      pluginExists: db.prepare<[string], { found: number }>('SELECT 1 AS found FROM plugins WHERE id = ?'),
      getConfig: db.prepare<[string], SealedRow>('SELECT key_id, data FROM plugin_configs WHERE plugin_id = ?'),
      saveConfig: db.prepare<[string, string, string]>(
        'INSERT INTO plugin_configs (plugin_id, key_id, data) VALUES (?, ?, ?) ON CONFLICT (plugin_id) DO UPDATE SET key_id = excluded.key_id, data = excluded.data',
      ),
      getWorkspaceConfig: db.prepare<[string, string], SealedRow>('SELECT key_id, data FROM plugin_workspace_configs WHERE plugin_id = ? AND workspace_id = ?'),
      saveWorkspaceConfig: db.prepare<[string, string, string, string]>(
        'INSERT INTO plugin_workspace_configs (plugin_id, workspace_id, key_id, data) VALUES (?, ?, ?, ?) ON CONFLICT (plugin_id, workspace_id) DO UPDATE SET key_id = excluded.key_id, data = excluded.data',
      ),
      deleteWorkspaceConfig: db.prepare<[string, string]>('DELETE FROM plugin_workspace_configs WHERE plugin_id = ? AND workspace_id = ?'),
      listWorkspaceConfigs: db.prepare<[string], SealedRow & { workspace_id: string }>(
        'SELECT workspace_id, key_id, data FROM plugin_workspace_configs WHERE plugin_id = ? ORDER BY workspace_id',
      ),
      getState: db.prepare<Keyed, { value_json: string }>(`SELECT value_json FROM plugin_state WHERE ${OWNER} AND key = @key`),
      hasState: db.prepare<Keyed, { found: number }>(`SELECT 1 AS found FROM plugin_state WHERE ${OWNER} AND key = @key`),
      countState: db.prepare<OwnerParams, { n: number }>(`SELECT COUNT(*) AS n FROM plugin_state WHERE ${OWNER}`),
      putState: db.prepare<Keyed & { value_json: string }>(
        'INSERT INTO plugin_state (plugin_id, scope, scope_id, key, value_json) VALUES (@plugin, @scope, @scope_id, @key, @value_json) ON CONFLICT (plugin_id, scope, scope_id, key) DO UPDATE SET value_json = excluded.value_json',
      ),
      deleteState: db.prepare<Keyed>(`DELETE FROM plugin_state WHERE ${OWNER} AND key = @key`),
      listState: db.prepare<OwnerParams & { prefix: string; after: string; length: number; limit: number }, { key: string }>(
        `SELECT key FROM plugin_state WHERE ${OWNER} AND key >= @prefix AND key > @after AND substr(key, 1, @length) = @prefix ORDER BY key LIMIT @limit`,
      ),
      getSecret: db.prepare<Keyed, SealedRow>(`SELECT key_id, data FROM plugin_secrets WHERE ${OWNER} AND key = @key`),
      hasSecret: db.prepare<Keyed, { found: number }>(`SELECT 1 AS found FROM plugin_secrets WHERE ${OWNER} AND key = @key`),
      countSecrets: db.prepare<OwnerParams, { n: number }>(`SELECT COUNT(*) AS n FROM plugin_secrets WHERE ${OWNER}`),
      putSecret: db.prepare<Keyed & SealedRow>(
        'INSERT INTO plugin_secrets (plugin_id, scope, scope_id, key, key_id, data) VALUES (@plugin, @scope, @scope_id, @key, @key_id, @data) ON CONFLICT (plugin_id, scope, scope_id, key) DO UPDATE SET key_id = excluded.key_id, data = excluded.data',
      ),
      deleteSecret: db.prepare<Keyed>(`DELETE FROM plugin_secrets WHERE ${OWNER} AND key = @key`),
      dropConfig: db.prepare<[string]>('DELETE FROM plugin_configs WHERE plugin_id = ?'),
      dropWorkspaceConfigs: db.prepare<[string]>('DELETE FROM plugin_workspace_configs WHERE plugin_id = ?'),
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

  getWorkspaceConfig(pluginId: string, workspaceId: string): SealedValue | undefined {
    return sealed(this.s.getWorkspaceConfig.get(pluginId, workspaceId));
  }

  saveWorkspaceConfig(pluginId: string, workspaceId: string, config: SealedValue | null): void {
    if (config) this.s.saveWorkspaceConfig.run(pluginId, workspaceId, config.keyId, config.data);
    else this.s.deleteWorkspaceConfig.run(pluginId, workspaceId);
  }

  listWorkspaceConfigs(pluginId: string): WorkspaceConfig[] {
    return this.s.listWorkspaceConfigs.all(pluginId).map((row) => ({ workspaceId: row.workspace_id, config: { keyId: row.key_id, data: row.data } }));
  }

  getState(owner: EntryOwner, key: string): string | undefined {
    return this.s.getState.get({ ...ownerParams(owner), key })?.value_json;
  }

  putState(owner: EntryOwner, key: string, valueJson: string, maxKeys: number): HostEntryWrite {
    const params = { ...ownerParams(owner), key };
    return this.db.transaction((): HostEntryWrite => {
      const refusal = this.refusal(
        owner.pluginId,
        maxKeys,
        () => this.s.hasState.get(params),
        () => this.s.countState.get(ownerParams(owner))!.n,
      );
      if (refusal) return refusal;
      this.s.putState.run({ ...params, value_json: valueJson });
      return 'stored';
    })();
  }

  deleteState(owner: EntryOwner, key: string): boolean {
    return this.s.deleteState.run({ ...ownerParams(owner), key }).changes > 0;
  }

  listStateKeys(owner: EntryOwner, prefix: string, after: string | undefined, limit: number): string[] {
    return this.s.listState.all({ ...ownerParams(owner), prefix, after: after ?? '', length: prefix.length, limit }).map((row) => row.key);
  }

  getSecret(owner: EntryOwner, key: string): SealedValue | undefined {
    return sealed(this.s.getSecret.get({ ...ownerParams(owner), key }));
  }

  putSecret(owner: EntryOwner, key: string, value: SealedValue, maxKeys: number): HostEntryWrite {
    const params = { ...ownerParams(owner), key };
    return this.db.transaction((): HostEntryWrite => {
      const refusal = this.refusal(
        owner.pluginId,
        maxKeys,
        () => this.s.hasSecret.get(params),
        () => this.s.countSecrets.get(ownerParams(owner))!.n,
      );
      if (refusal) return refusal;
      this.s.putSecret.run({ ...params, key_id: value.keyId, data: value.data });
      return 'stored';
    })();
  }

  deleteSecret(owner: EntryOwner, key: string): boolean {
    return this.s.deleteSecret.run({ ...ownerParams(owner), key }).changes > 0;
  }

  /** Everything kept for a plugin, dropped with its record (uninstall). */
  dropPlugin(pluginId: string): void {
    this.s.dropConfig.run(pluginId);
    this.s.dropWorkspaceConfigs.run(pluginId);
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
