import type { ClientBase } from 'pg';
import type { ReplicaTransaction } from '../../application/ports/replica-roster';
import { ReplicaRoster } from '../../application/ports/replica-roster';

/** The condition that a `replicas` row (as `r`) is live, in the database's clock. */
export const LIVE_REPLICA = `r.heartbeat_at > now() - make_interval(secs => ${ReplicaRoster.GONE_AFTER_MS / 1000})`;

/** The copies part of a transaction, over the connection that holds the catalog lock; `wrote` hears of each write. */
export function replicaTransaction(live: () => ClientBase, replicaId: string, wrote: () => void): ReplicaTransaction {
  const query = async (sql: string, values: unknown[]) => (await live().query(sql, values)).rows;
  return {
    servedPlugins: async () => {
      const rows = await query(
        `SELECT DISTINCT c.plugin_id FROM replica_copies c JOIN replicas r ON r.id = c.replica_id WHERE c.status = 'active' AND ${LIVE_REPLICA}`,
        [],
      );
      return new Set(rows.map((row) => row.plugin_id as string));
    },
    saveCopy: async (pluginId, copy) => {
      wrote();
      if (copy === null) {
        await query('DELETE FROM replica_copies WHERE replica_id = $1 AND plugin_id = $2', [replicaId, pluginId]);
        return;
      }
      // A replica counted gone has no row until its next heartbeat; its copies wait for that.
      await query(
        `INSERT INTO replica_copies (replica_id, plugin_id, status, pid) SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM replicas WHERE id = $1)
         ON CONFLICT (replica_id, plugin_id) DO UPDATE SET status = excluded.status, pid = excluded.pid`,
        [replicaId, pluginId, copy.status, copy.pid],
      );
    },
    dropCopies: async (pluginId) => {
      wrote();
      await query('DELETE FROM replica_copies WHERE plugin_id = $1', [pluginId]);
    },
    forget: async (replicaIds) => {
      wrote();
      await query('DELETE FROM replicas WHERE id = ANY($1)', [replicaIds]);
    },
  };
}
