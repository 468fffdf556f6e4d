import { Pool, type PoolClient, type PoolConfig } from 'pg';
import type { Logger } from '../../application/ports/logger';
import { PluginRecords, type WorkspaceConfig } from '../../application/ports/plugin-records';
import type { SessionRemoval, SessionStore } from '../../application/ports/session-store';
import { SerialQueue } from '../../application/shared/serial-queue';
import type { EntryOwner } from '../../domain/host-entry-owner';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';
import { isConnectionLoss, isUnreachable } from './connection-loss';
import { ToolportError } from '../../domain/errors';
import { CHANGES_CHANNEL } from './postgres-store-changes';
import type { HostEntries, HostEntryWrite } from '../../application/ports/host-entries';
import type { ApprovalRequests, ApprovalSettlement } from '../../application/ports/approval-requests';
import type { StoredApprovalRequest } from '../../domain/approvals';
import { approvalFromRow, approvalQueries, approvalValues } from './postgres-approvals';
import type { SealedValue } from '../../application/ports/secret-box';
import { hostEntries } from './postgres-host-entries';
import { CATALOG_LOCK, inTransaction } from './postgres-locks';
import { migratePostgresSchema } from './postgres-migrations';
import { pluginFromRow, SESSION_COLUMNS, SESSION_UPSERT, sessionFromRow, sessionValues } from './postgres-rows';
import { pluginQueries, postgresTransaction, type PostgresStoreTransaction } from './postgres-transaction';
import { describeStoreUrl, failureReason, StoreOpenError } from './store-open-error';

export interface PostgresStoreOptions {
  /** A `postgres://` URL (a password in it works, but a pgpass file keeps it off command lines), or pg settings. */
  connection: string | PoolConfig;
  /** Connections kept at most (default 10, at least 2): one serves transactions, the others reads, including reads made while a transaction is open. */
  poolSize?: number;
  /** Where a connection lost while idle in the pool is reported. */
  logger?: Logger;
  /** This backend's replica id (docs/operations.md §10); its copies are saved under it. */
  replicaId?: string;
}

const SESSION_SELECT = `SELECT ${SESSION_COLUMNS.join(', ')} FROM sessions`;

/**
 * The plugin records, sessions and Host entries in PostgreSQL, which several backends can share. Every transaction takes a
 * transaction-level advisory lock first, so transactions run one at a time across all of
 * them; within one backend they also queue, so at most one connection waits on the lock and
 * the rest of the pool stays free for reads. Reads outside a transaction run on their own
 * connection and see committed data only.
 */
export class PostgresPluginStore extends PluginRecords implements SessionStore, HostEntries, ApprovalRequests {
  private readonly queue = new SerialQueue();
  private closing: Promise<void> | undefined;

  private constructor(
    /** Shared with the roster, the vault and the change feed of this store (same adapter). */
    readonly pool: Pool,
    private readonly poolSize: number,
    readonly replicaId: string,
  ) {
    super();
  }

  /** Connects, brings the schema up to date and answers the store; StoreOpenError when it cannot. */
  static async open(options: PostgresStoreOptions): Promise<PostgresPluginStore> {
    const base: PoolConfig = typeof options.connection === 'string' ? { connectionString: options.connection } : options.connection;
    const pool = new Pool({
      application_name: 'toolport',
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      ...base,
      max: Math.max(2, options.poolSize ?? 10),
    });
    // An idle connection the server dropped must not crash the backend; the next use reconnects.
    pool.on('error', (error) => options.logger?.warn({ code: (error as { code?: string }).code }, 'a pooled store connection was lost'));
    const where = typeof options.connection === 'string' ? describeStoreUrl(options.connection) : 'the PostgreSQL store';
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      await migratePostgresSchema(client);
    } catch (error) {
      client?.release(true);
      await pool.end().catch(() => undefined);
      throw new StoreOpenError(`cannot open ${where}: ${failureReason(error)}`);
    }
    client.release();
    return new PostgresPluginStore(pool, pool.options.max, options.replicaId ?? 'replica');
  }

  override transaction<T>(work: (tx: PostgresStoreTransaction) => Promise<T>): Promise<T> {
    return this.queue.run(() =>
      this.withClient(async (client, lostBefore) => {
        let open = true;
        try {
          return await inTransaction(client, CATALOG_LOCK, async () => {
            // From here on a lost connection may have cut `work` short: no retry.
            lostBefore.retry = false;
            const tx = postgresTransaction(client, () => open, this.replicaId);
            const result = await work(tx);
            // Inside the transaction: the other replicas hear of it exactly when it commits.
            if (tx.wrote()) await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, this.replicaId]);
            return result;
          });
        } finally {
          open = false;
        }
      }),
    );
  }

  override async listPlugins(): Promise<PluginRecord[]> {
    return (await this.query(pluginQueries.list)).map(pluginFromRow);
  }

  override async getPlugin(id: string): Promise<PluginRecord | undefined> {
    const [row] = await this.query(pluginQueries.get, [id]);
    return row ? pluginFromRow(row) : undefined;
  }

  async listSessions(): Promise<SessionRecord[]> {
    return (await this.query(`${SESSION_SELECT} ORDER BY created_at, seq`)).map(sessionFromRow);
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    const [row] = await this.query(`${SESSION_SELECT} WHERE session_id = $1`, [sessionId]);
    return row ? sessionFromRow(row) : undefined;
  }

  async findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    const [row] = await this.query(`${SESSION_SELECT} WHERE session_token_hash = $1`, [tokenHash]);
    return row ? sessionFromRow(row) : undefined;
  }

  async saveSession(session: SessionRecord): Promise<void> {
    // An update keeps the row's `seq`, and so the session's place in the creation order.
    await this.query(SESSION_UPSERT, sessionValues(session));
  }

  async deleteSessions(which: SessionRemoval): Promise<number> {
    const statuses = which.statuses.filter((status) => status === 'stopped' || status === 'dead');
    // One statement: of the removable sessions, all but the `keepNewest` most recently updated.
    // COLLATE "C": ISO 8601 instants compare as their characters, whatever the database's locale.
    const rows = await this.query(
      `DELETE FROM sessions WHERE session_id IN (
         SELECT session_id FROM sessions
         WHERE status = ANY($1::text[]) AND ($2::text IS NULL OR updated_at COLLATE "C" < $2::text COLLATE "C")
         ORDER BY updated_at COLLATE "C" DESC, seq DESC OFFSET $3)
       RETURNING session_id`,
      [statuses, which.updatedBefore ?? null, which.keepNewest ?? 0],
    );
    return rows.length;
  }

  // The Host API's entries (docs/plugin-protocol.md §13): each call is its own statement or small
  // transaction on a pooled connection, so none waits on the catalog lock.

  override async getConfig(pluginId: string): Promise<SealedValue | undefined> {
    return this.withClient((client) => hostEntries.getConfig(client, pluginId));
  }

  override async getWorkspaceConfig(pluginId: string, workspaceId: string): Promise<SealedValue | undefined> {
    return this.withClient((client) => hostEntries.getWorkspaceConfig(client, pluginId, workspaceId));
  }

  override async listWorkspaceConfigs(pluginId: string): Promise<WorkspaceConfig[]> {
    return this.withClient((client) => hostEntries.listWorkspaceConfigs(client, pluginId));
  }

  async getState(owner: EntryOwner, key: string): Promise<string | undefined> {
    return this.withClient((client) => hostEntries.getState(client, owner, key));
  }

  async putState(owner: EntryOwner, key: string, valueJson: string, maxKeys: number): Promise<HostEntryWrite> {
    return this.withClient((client) => hostEntries.putKey(client, 'state', owner, key, [valueJson], maxKeys));
  }

  async deleteState(owner: EntryOwner, key: string): Promise<boolean> {
    return this.withClient((client) => hostEntries.deleteKey(client, 'state', owner, key));
  }

  async listStateKeys(owner: EntryOwner, prefix: string, after: string | undefined, limit: number): Promise<string[]> {
    return this.withClient((client) => hostEntries.listStateKeys(client, owner, prefix, after, limit));
  }

  async getSecret(owner: EntryOwner, key: string): Promise<SealedValue | undefined> {
    return this.withClient((client) => hostEntries.getSecret(client, owner, key));
  }

  async putSecret(owner: EntryOwner, key: string, value: SealedValue, maxKeys: number): Promise<HostEntryWrite> {
    return this.withClient((client) => hostEntries.putKey(client, 'secret', owner, key, [value.keyId, value.data], maxKeys));
  }

  async deleteSecret(owner: EntryOwner, key: string): Promise<boolean> {
    return this.withClient((client) => hostEntries.deleteKey(client, 'secret', owner, key));
  }

  override async incrementBootCounter(): Promise<number> {
    // Not idempotent: never run twice.
    const [row] = await this.query(
      "INSERT INTO counters (name, value) VALUES ('boot', 1) ON CONFLICT (name) DO UPDATE SET value = counters.value + 1 RETURNING value",
      [],
      false,
    );
    return Number(row.value);
  }

  async addApprovalRequest(request: StoredApprovalRequest): Promise<void> {
    await this.query(approvalQueries.insert, approvalValues(request), false);
  }

  async getApprovalRequest(id: string): Promise<StoredApprovalRequest | undefined> {
    const [row] = await this.query(approvalQueries.get, [id]);
    return row ? approvalFromRow(row) : undefined;
  }

  async listPendingApprovals(): Promise<StoredApprovalRequest[]> {
    return (await this.query(approvalQueries.pending)).map(approvalFromRow);
  }

  async settleApprovalRequest(id: string, to: ApprovalSettlement): Promise<{ moved: boolean; request: StoredApprovalRequest } | undefined> {
    // Not run again on a fresh connection: a first try that committed before the loss was seen would read as "not pending".
    const moved = (await this.query(approvalQueries.settle, [id, to.state, to.decided_by, to.reason], false)).length === 1;
    const request = await this.getApprovalRequest(id);
    return request && { moved, request };
  }

  async withdrawApprovalRequests(holder: string | null): Promise<number> {
    return (await this.query(approvalQueries.withdraw, [holder])).length;
  }

  async deleteSettledApprovals(expiredBefore: string): Promise<number> {
    return (await this.query(approvalQueries.deleteSettled, [expiredBefore])).length;
  }

  /** Waits for the connections in use to come back (a transaction under way finishes), then closes them all. */
  override close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }

  /** One statement on a pooled connection, run again on a fresh one if the first was found dead. */
  private query(sql: string, values: unknown[] = [], retry = true): Promise<Record<string, unknown>[]> {
    return this.withClient(async (client, lostBefore) => {
      lostBefore.retry = retry;
      return (await client.query(sql, values)).rows;
    });
  }

  /**
   * Runs `use` on a pooled connection. Connections the server ended while they sat idle in the
   * pool (a restart, a failover) each fail their first statement: such a one is dropped and
   * `use` runs again on another, as long as `retry` says nothing can have taken effect yet.
   * Every pooled connection may be dead, so it tries one more than the pool holds.
   */
  private async withClient<T>(use: (client: PoolClient, lostBefore: { retry: boolean }) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      this.assertOpen();
      const client = await this.pool.connect().catch((error: unknown) => {
        throw isUnreachable(error) || isConnectionLoss(error) ? unavailable(error) : error;
      });
      // A connection lost mid-statement also emits 'error' on its client; the statement's rejection carries it.
      const ignore = () => undefined;
      client.on('error', ignore);
      const lostBefore = { retry: true };
      try {
        const result = await use(client, lostBefore);
        client.off('error', ignore);
        client.release();
        return result;
      } catch (error) {
        const lost = isConnectionLoss(error);
        client.off('error', ignore);
        client.release(lost ? (error as Error) : undefined);
        if (!lost) throw error;
        if (!lostBefore.retry || attempt > this.poolSize) throw unavailable(error);
      }
    }
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('the store is closed');
  }
}

/** What every replica answers a change with while its store is out of reach (docs/operations.md §10). */
function unavailable(error: unknown): ToolportError {
  return new ToolportError(
    'STORE_UNAVAILABLE',
    `the PostgreSQL store cannot be reached (${failureReason(error)}); changes are refused until it is back, calls go on`,
  );
}
