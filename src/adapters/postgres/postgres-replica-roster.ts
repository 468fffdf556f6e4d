import type { Pool, PoolClient } from 'pg';
import type { CatalogState } from '../../domain/catalog-revisions';
import type { StoreTransaction } from '../../application/ports/plugin-records';
import { ReplicaRoster, type ReplicaCopy, type ReplicaMember, type ReplicaTransaction } from '../../application/ports/replica-roster';
import type { PluginStatus } from '../../domain/plugin-record';
import { isConnectionLoss } from './connection-loss';
import { CATALOG_LOCK, inTransaction } from './postgres-locks';
import { LIVE_REPLICA } from './postgres-replica-rows';
import { catalogFromRow } from './postgres-rows';
import { replicasOf } from './postgres-transaction';

const NOT_LIVE = `NOT (${LIVE_REPLICA})`;

/** The `replicas` table of a PostgreSQL store, on the store's pool. */
export class PostgresReplicaRoster extends ReplicaRoster {
  constructor(
    private readonly pool: Pool,
    readonly replicaId: string,
  ) {
    super();
  }

  override copiesIn(tx: StoreTransaction): ReplicaTransaction {
    return replicasOf(tx);
  }

  override async join(url: string, pid: number, open: (bootCounter: number) => CatalogState): Promise<{ alone: boolean; state: CatalogState }> {
    this.lastUrl = url;
    this.pid = pid;
    return this.withClient((client) =>
      inTransaction(client, CATALOG_LOCK, async () => {
        await client.query(`DELETE FROM replicas r WHERE ${NOT_LIVE} OR r.id = $1`, [this.replicaId]);
        const { rows } = await client.query('SELECT count(*)::int AS n FROM replicas');
        await client.query('INSERT INTO replicas (id, url, pid) VALUES ($1, $2, $3)', [this.replicaId, url, pid]);
        const stored = (await client.query('SELECT generation, revision, content_hash FROM catalog_state WHERE id = 1')).rows[0];
        if (rows[0].n > 0 && stored) return { alone: false, state: catalogFromRow(stored) };
        // A cluster start: no other replica is live, so every copy left in the table is stale.
        await client.query('DELETE FROM replica_copies');
        const counter = await client.query(
          "INSERT INTO counters (name, value) VALUES ('boot', 1) ON CONFLICT (name) DO UPDATE SET value = counters.value + 1 RETURNING value",
        );
        const state = open(Number(counter.rows[0].value));
        await client.query(
          `INSERT INTO catalog_state (id, generation, revision, content_hash) VALUES (1, $1, $2, $3)
           ON CONFLICT (id) DO UPDATE SET generation = excluded.generation, revision = excluded.revision, content_hash = excluded.content_hash`,
          [state.generation, state.revision, state.contentHash],
        );
        return { alone: true, state };
      }),
    );
  }

  override async heartbeat(): Promise<{ silent: string[]; rejoined: boolean }> {
    return this.withClient(async (client) => {
      const beat = await client.query('UPDATE replicas SET heartbeat_at = now() WHERE id = $1', [this.replicaId]);
      const rejoined = beat.rowCount === 0;
      if (rejoined) {
        await client.query('INSERT INTO replicas (id, url, pid) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [this.replicaId, this.lastUrl, this.pid]);
      }
      const silent = await client.query(`SELECT id FROM replicas r WHERE ${NOT_LIVE}`);
      return { silent: silent.rows.map((row) => row.id as string), rejoined };
    });
  }

  override async live(): Promise<ReplicaMember[]> {
    const { rows } = await this.pool.query(`SELECT id, url, pid FROM replicas r WHERE ${LIVE_REPLICA} ORDER BY started_at, id`);
    return rows.map((row) => ({ id: row.id as string, url: row.url as string, pid: Number(row.pid) }));
  }

  override async copies(): Promise<ReplicaCopy[]> {
    const { rows } = await this.pool.query(
      `SELECT c.replica_id, c.plugin_id, c.status, c.pid FROM replica_copies c JOIN replicas r ON r.id = c.replica_id WHERE ${LIVE_REPLICA} ORDER BY r.started_at, r.id`,
    );
    return rows.map((row) => ({
      replicaId: row.replica_id as string,
      pluginId: row.plugin_id as string,
      status: row.status as PluginStatus,
      pid: row.pid === null ? null : Number(row.pid),
    }));
  }

  /** The URL given to join(), kept for a heartbeat that finds this replica counted gone. */
  private lastUrl = '';
  private pid = 0;

  /**
   * Runs `use` on a pooled connection. A checked-out client whose connection breaks emits
   * 'error' besides failing its statement: with no listener that would end the process.
   */
  private async withClient<T>(use: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const ignore = () => undefined;
    client.on('error', ignore);
    try {
      const result = await use(client);
      client.release();
      return result;
    } catch (error) {
      client.release(isConnectionLoss(error) ? (error as Error) : undefined);
      throw error;
    } finally {
      client.off('error', ignore);
    }
  }
}
