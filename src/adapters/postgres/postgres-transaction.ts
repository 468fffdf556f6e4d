import type { PoolClient } from 'pg';
import type { StoreTransaction } from '../../application/ports/plugin-records';
import type { ReplicaTransaction } from '../../application/ports/replica-roster';
import type { SealedValue } from '../../application/ports/secret-box';
import type { ApprovalRule } from '../../domain/approvals';
import { isDefaultScope, normaliseProfile, normaliseScope, type PluginScope, policyOf } from '../../domain/scopes';
import { approvalQueries } from './postgres-approvals';
import { hostEntries } from './postgres-host-entries';
import { replicaTransaction } from './postgres-replica-rows';
import { catalogFromRow, PLUGIN_COLUMNS, pluginFromRow, pluginValues, SESSION_UPSERT, sessionValues } from './postgres-rows';

const PLUGIN_SELECT = `SELECT ${PLUGIN_COLUMNS.join(', ')} FROM plugins`;
const PLUGIN_UPSERT = `INSERT INTO plugins (${PLUGIN_COLUMNS.join(', ')}) VALUES (${PLUGIN_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (id) DO UPDATE SET ${PLUGIN_COLUMNS.filter((c) => c !== 'id')
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

/** The plugin reads shared by a transaction and the store's reads outside one. */
export const pluginQueries = {
  list: `${PLUGIN_SELECT} ORDER BY install_seq, id`,
  get: `${PLUGIN_SELECT} WHERE id = $1`,
};

/** The Host configuration reads and writes a transaction has beside the port's (until the port names them). */
export interface ConfigInTransaction {
  getConfig(pluginId: string): Promise<SealedValue | undefined>;
  saveConfig(pluginId: string, config: SealedValue): Promise<void>;
}

/** A transaction of this store: the port's, with the replicas' copies beside it (read through `PostgresReplicaRoster.copiesIn`). */
export interface PostgresStoreTransaction extends StoreTransaction {
  readonly replicas: ReplicaTransaction;
}

/** The copies part of `tx`, when it is (or spreads) a transaction of this store. */
export function replicasOf(tx: StoreTransaction): ReplicaTransaction {
  const copies = (tx as Partial<PostgresStoreTransaction>).replicas;
  if (!copies) throw new Error('not a transaction of the shared PostgreSQL store');
  return copies;
}

/**
 * The StoreTransaction over one connection that is inside BEGIN with the catalog lock held.
 * It refuses use once `isOpen` says the transaction ended, so a handle kept past the end of
 * `work` cannot write outside any transaction.
 */
export function postgresTransaction(
  client: PoolClient,
  isOpen: () => boolean,
  replicaId: string,
): PostgresStoreTransaction & ConfigInTransaction & { wrote(): boolean } {
  const live = (): PoolClient => {
    if (!isOpen()) throw new Error('this store transaction has ended');
    return client;
  };
  let wrote = false;
  const query = async (sql: string, values: unknown[] = []) => {
    // Reads start with SELECT; anything else changes what other replicas must follow.
    if (!sql.trimStart().startsWith('SELECT')) wrote = true;
    return (await live().query(sql, values)).rows;
  };
  return {
    wrote: () => wrote,
    replicas: replicaTransaction(live, replicaId, () => {
      wrote = true;
    }),
    listPlugins: async () => (await query(pluginQueries.list)).map(pluginFromRow),
    getPlugin: async (id) => {
      const [row] = await query(pluginQueries.get, [id]);
      return row ? pluginFromRow(row) : undefined;
    },
    savePlugin: async (record) => {
      await query(PLUGIN_UPSERT, pluginValues(record));
    },
    deletePlugin: async (id) => {
      // The record first: a Host write under way holds it share-locked, so this waits for that
      // write to commit, and the entries removed next include it.
      await query('DELETE FROM plugins WHERE id = $1', [id]);
      await hostEntries.dropPlugin(live(), id);
      await query('DELETE FROM replica_copies WHERE plugin_id = $1', [id]);
      await query('DELETE FROM plugin_scopes WHERE plugin_id = $1', [id]);
    },
    catalogPolicy: async () => {
      const scopes = await query('SELECT plugin_id, scope FROM plugin_scopes');
      const profiles = await query('SELECT name, include, exclude FROM profiles');
      return policyOf(
        scopes.map((row) => [row.plugin_id as string, row.scope as PluginScope] as const),
        profiles.map((row) => ({ name: row.name as string, include: row.include as string[], exclude: row.exclude as string[] })),
      );
    },
    savePluginScope: async (pluginId, scope) => {
      const normal = normaliseScope(scope);
      if (isDefaultScope(normal)) await query('DELETE FROM plugin_scopes WHERE plugin_id = $1', [pluginId]);
      else
        await query('INSERT INTO plugin_scopes (plugin_id, scope) VALUES ($1, $2) ON CONFLICT (plugin_id) DO UPDATE SET scope = excluded.scope', [
          pluginId,
          JSON.stringify(normal),
        ]);
    },
    saveProfile: async (profile) => {
      const normal = normaliseProfile(profile);
      await query(
        'INSERT INTO profiles (name, include, exclude) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET include = excluded.include, exclude = excluded.exclude',
        [normal.name, JSON.stringify(normal.include), JSON.stringify(normal.exclude)],
      );
    },
    deleteProfile: async (name) => {
      await query('DELETE FROM profiles WHERE name = $1', [name]);
    },
    approvalRules: async () => {
      const [row] = await query(approvalQueries.rules);
      return row ? (row.rules as ApprovalRule[]) : [];
    },
    saveApprovalRules: async (rules) => {
      await query(approvalQueries.saveRules, [JSON.stringify(rules)]);
    },
    // Sessions are not catalog content: writing one (straight on the connection) does not make
    // the other replicas reload their catalog.
    saveSession: async (session) => {
      await live().query(SESSION_UPSERT, sessionValues(session));
    },
    sessionsUsingProfile: async (name) =>
      (await query("SELECT session_id FROM sessions WHERE profile = $1 AND status <> 'stopped' ORDER BY created_at, seq", [name])).map(
        (row) => row.session_id as string,
      ),
    getConfig: async (pluginId) => hostEntries.getConfig(live(), pluginId),
    saveConfig: async (pluginId, config) => {
      wrote = true;
      await hostEntries.saveConfig(live(), pluginId, config);
    },
    getWorkspaceConfig: async (pluginId, workspaceId) => hostEntries.getWorkspaceConfig(live(), pluginId, workspaceId),
    saveWorkspaceConfig: async (pluginId, workspaceId, config) => {
      wrote = true;
      await hostEntries.saveWorkspaceConfig(live(), pluginId, workspaceId, config);
    },
    listWorkspaceConfigs: async (pluginId) => hostEntries.listWorkspaceConfigs(live(), pluginId),
    nextInstallSeq: async () => {
      // Above every value handed out and every stored one; the lock makes read-then-write safe.
      const [row] = await query(
        `INSERT INTO counters (name, value)
           VALUES ('install_seq', (SELECT COALESCE(MAX(install_seq), 0) FROM plugins) + 1)
         ON CONFLICT (name) DO UPDATE SET value = GREATEST(counters.value, (SELECT COALESCE(MAX(install_seq), 0) FROM plugins)) + 1
         RETURNING value`,
      );
      return Number(row.value);
    },
    catalogState: async () => {
      const [row] = await query('SELECT generation, revision, content_hash FROM catalog_state WHERE id = 1');
      return row ? catalogFromRow(row) : undefined;
    },
    saveCatalogState: async (state) => {
      await query(
        `INSERT INTO catalog_state (id, generation, revision, content_hash) VALUES (1, $1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET generation = excluded.generation, revision = excluded.revision, content_hash = excluded.content_hash`,
        [state.generation, state.revision, state.contentHash],
      );
    },
  };
}
