import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { ApprovalRequests, ApprovalSettlement } from '../../application/ports/approval-requests';
import type { HostEntries, HostEntryWrite } from '../../application/ports/host-entries';
import { PluginRecords, type StoreTransaction, type WorkspaceConfig } from '../../application/ports/plugin-records';
import type { SessionRemoval, SessionStore } from '../../application/ports/session-store';
import type { SealedValue } from '../../application/ports/secret-box';
import { SerialQueue } from '../../application/shared/serial-queue';
import type { StoredApprovalRequest } from '../../domain/approvals';
import type { CatalogState } from '../../domain/catalog-revisions';
import type { EntryOwner } from '../../domain/host-entry-owner';
import type { PluginRecord } from '../../domain/plugin-record';
import { isDefaultScope, normaliseProfile, normaliseScope, type PluginScope, policyOf } from '../../domain/scopes';
import type { SessionRecord } from '../../domain/session';
import { SqliteApprovals } from './sqlite-approvals';
import { SqliteHostEntries } from './sqlite-host-entries';
import { migrateSqliteSchema } from './sqlite-migrations';
import { type PluginRow, type SessionRow, pluginFromRow, pluginToRow, sessionFromRow, sessionToRow } from './sqlite-rows';

const PLUGIN_COLUMNS =
  'id, version, status, enabled, manifest_json, package_sha256, last_error, last_error_at, restart_count, install_seq, installed_at, updated_at, server_json, tool_drift_json';
const SESSION_COLUMNS =
  'session_id, task_id, workspace_id, surface, profile, status, session_token_hash, session_verifier, mcp_url, launched, agentctl_pid, agentctl_start_time, agentctl_replica, last_linked_at, link_down_since, created_at, updated_at';

function placeholders(columns: string): string {
  return columns
    .split(', ')
    .map((c) => `@${c}`)
    .join(', ');
}

/**
 * The default store (plugin records, sessions, Host entries, approvals): one SQLite file (WAL mode) opened by the single backend process.
 * better-sqlite3 is synchronous, so every operation runs on one queue: a transaction holds it
 * from BEGIN IMMEDIATE to COMMIT, and nothing outside it ever reads its uncommitted writes.
 */
export class SqlitePluginStore extends PluginRecords implements SessionStore, HostEntries, ApprovalRequests {
  private readonly db: Database.Database;
  private readonly statements;
  private readonly entries: SqliteHostEntries;
  private readonly approvals: SqliteApprovals;
  private readonly queue = new SerialQueue();

  constructor(filePath: string) {
    super();
    // Session token verifiers and sealed secrets live here: owner-only from the first byte
    // (SQLite gives its -wal and -shm files the database's permissions).
    if (filePath !== ':memory:') closeSync(openSync(filePath, 'a', 0o600));
    this.db = new Database(filePath);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('busy_timeout = 5000');
      migrateSqliteSchema(this.db);
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.statements = this.prepare();
    this.entries = new SqliteHostEntries(this.db);
    this.approvals = new SqliteApprovals(this.db);
  }

  private prepare() {
    const db = this.db;
    return {
      listPlugins: db.prepare<[], PluginRow>(`SELECT ${PLUGIN_COLUMNS} FROM plugins ORDER BY install_seq, id`),
      getPlugin: db.prepare<[string], PluginRow>(`SELECT ${PLUGIN_COLUMNS} FROM plugins WHERE id = ?`),
      savePlugin: db.prepare<PluginRow>(`INSERT OR REPLACE INTO plugins (${PLUGIN_COLUMNS}) VALUES (${placeholders(PLUGIN_COLUMNS)})`),
      deletePlugin: db.prepare<[string]>('DELETE FROM plugins WHERE id = ?'),
      listScopes: db.prepare<[], { plugin_id: string; scope_json: string }>('SELECT plugin_id, scope_json FROM plugin_scopes'),
      saveScope: db.prepare<[string, string]>('INSERT OR REPLACE INTO plugin_scopes (plugin_id, scope_json) VALUES (?, ?)'),
      deleteScope: db.prepare<[string]>('DELETE FROM plugin_scopes WHERE plugin_id = ?'),
      listProfiles: db.prepare<[], { name: string; include_json: string; exclude_json: string }>('SELECT name, include_json, exclude_json FROM profiles'),
      saveProfile: db.prepare<[string, string, string]>('INSERT OR REPLACE INTO profiles (name, include_json, exclude_json) VALUES (?, ?, ?)'),
      deleteProfile: db.prepare<[string]>('DELETE FROM profiles WHERE name = ?'),
      maxInstallSeq: db.prepare<[], { seq: number | null }>('SELECT MAX(install_seq) AS seq FROM plugins'),
      listSessions: db.prepare<[], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY created_at, rowid`),
      getSession: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE session_id = ?`),
      sessionByTokenHash: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE session_token_hash = ?`),
      // An UPDATE keeps the rowid (and so the creation order); INSERT OR REPLACE would not.
      updateSession: db.prepare<SessionRow>(
        `UPDATE sessions SET ${SESSION_COLUMNS.split(', ')
          .filter((c) => c !== 'session_id')
          .map((c) => `${c} = @${c}`)
          .join(', ')} WHERE session_id = @session_id`,
      ),
      // Of the removable sessions, all but the `keep` most recently updated (LIMIT -1: no limit).
      deleteSessions: db.prepare<{ stopped: number; dead: number; before: string | null; keep: number }>(
        `DELETE FROM sessions WHERE session_id IN (
          SELECT session_id FROM sessions
          WHERE ((status = 'stopped' AND @stopped = 1) OR (status = 'dead' AND @dead = 1)) AND (@before IS NULL OR updated_at < @before)
          ORDER BY updated_at DESC, rowid DESC LIMIT -1 OFFSET @keep)`,
      ),
      sessionsUsingProfile: db.prepare<[string], { session_id: string }>(
        "SELECT session_id FROM sessions WHERE profile = ? AND status <> 'stopped' ORDER BY created_at, rowid",
      ),
      insertSession: db.prepare<SessionRow>(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (${placeholders(SESSION_COLUMNS)})`),
      getCounter: db.prepare<[string], { value: number }>('SELECT value FROM counters WHERE name = ?'),
      setCounter: db.prepare<[string, number]>('INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
      getCatalog: db.prepare<[], { generation: string; revision: number; content_hash: string }>(
        'SELECT generation, revision, content_hash FROM catalog_state WHERE id = 1',
      ),
      setCatalog: db.prepare<[string, number, string]>(
        'INSERT INTO catalog_state (id, generation, revision, content_hash) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET generation = excluded.generation, revision = excluded.revision, content_hash = excluded.content_hash',
      ),
    };
  }

  override transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.transactionHandle());
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  override listPlugins(): Promise<PluginRecord[]> {
    return this.read(() => this.statements.listPlugins.all().map(pluginFromRow));
  }

  override getPlugin(id: string): Promise<PluginRecord | undefined> {
    return this.read(() => this.pluginNow(id));
  }

  listSessions(): Promise<SessionRecord[]> {
    return this.read(() => this.statements.listSessions.all().map(sessionFromRow));
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.read(() => {
      const row = this.statements.getSession.get(sessionId);
      return row ? sessionFromRow(row) : undefined;
    });
  }

  findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    return this.read(() => {
      const row = this.statements.sessionByTokenHash.get(tokenHash);
      return row ? sessionFromRow(row) : undefined;
    });
  }

  saveSession(session: SessionRecord): Promise<void> {
    return this.read(() => this.db.transaction(() => this.sessionNow(session))());
  }

  deleteSessions(which: SessionRemoval): Promise<number> {
    return this.read(
      () =>
        this.statements.deleteSessions.run({
          stopped: which.statuses.includes('stopped') ? 1 : 0,
          dead: which.statuses.includes('dead') ? 1 : 0,
          before: which.updatedBefore ?? null,
          keep: which.keepNewest ?? 0,
        }).changes,
    );
  }

  override getConfig(pluginId: string): Promise<SealedValue | undefined> {
    return this.read(() => this.entries.getConfig(pluginId));
  }

  override getWorkspaceConfig(pluginId: string, workspaceId: string): Promise<SealedValue | undefined> {
    return this.read(() => this.entries.getWorkspaceConfig(pluginId, workspaceId));
  }

  override listWorkspaceConfigs(pluginId: string): Promise<WorkspaceConfig[]> {
    return this.read(() => this.entries.listWorkspaceConfigs(pluginId));
  }

  getState(owner: EntryOwner, key: string): Promise<string | undefined> {
    return this.read(() => this.entries.getState(owner, key));
  }

  putState(owner: EntryOwner, key: string, valueJson: string, maxKeys: number): Promise<HostEntryWrite> {
    return this.read(() => this.entries.putState(owner, key, valueJson, maxKeys));
  }

  deleteState(owner: EntryOwner, key: string): Promise<boolean> {
    return this.read(() => this.entries.deleteState(owner, key));
  }

  listStateKeys(owner: EntryOwner, prefix: string, after: string | undefined, limit: number): Promise<string[]> {
    return this.read(() => this.entries.listStateKeys(owner, prefix, after, limit));
  }

  getSecret(owner: EntryOwner, key: string): Promise<SealedValue | undefined> {
    return this.read(() => this.entries.getSecret(owner, key));
  }

  putSecret(owner: EntryOwner, key: string, value: SealedValue, maxKeys: number): Promise<HostEntryWrite> {
    return this.read(() => this.entries.putSecret(owner, key, value, maxKeys));
  }

  deleteSecret(owner: EntryOwner, key: string): Promise<boolean> {
    return this.read(() => this.entries.deleteSecret(owner, key));
  }

  addApprovalRequest(request: StoredApprovalRequest): Promise<void> {
    return this.read(() => this.approvals.add(request));
  }

  getApprovalRequest(id: string): Promise<StoredApprovalRequest | undefined> {
    return this.read(() => this.approvals.get(id));
  }

  listPendingApprovals(): Promise<StoredApprovalRequest[]> {
    return this.read(() => this.approvals.pending());
  }

  settleApprovalRequest(id: string, to: ApprovalSettlement): Promise<{ moved: boolean; request: StoredApprovalRequest } | undefined> {
    return this.read(() => this.approvals.settle(id, to));
  }

  withdrawApprovalRequests(holder: string | null): Promise<number> {
    return this.read(() => this.approvals.withdraw(holder));
  }

  deleteSettledApprovals(expiredBefore: string): Promise<number> {
    return this.read(() => this.approvals.deleteSettled(expiredBefore));
  }

  override incrementBootCounter(): Promise<number> {
    return this.read(() =>
      this.db.transaction(() => {
        const next = (this.statements.getCounter.get('boot')?.value ?? 0) + 1;
        this.statements.setCounter.run('boot', next);
        return next;
      })(),
    );
  }

  override close(): Promise<void> {
    // Queued, so a transaction or read already under way finishes first.
    return this.queue.run(async () => {
      if (this.db.open) this.db.close();
    });
  }

  /** One synchronous step on the queue, after any open transaction has committed. */
  private read<T>(step: () => T): Promise<T> {
    return this.queue.run(async () => step());
  }

  /** Updates or inserts the session's row; inside a transaction already open. */
  private sessionNow(session: SessionRecord): void {
    const row = sessionToRow(session);
    if (this.statements.updateSession.run(row).changes === 0) this.statements.insertSession.run(row);
  }

  private pluginNow(id: string): PluginRecord | undefined {
    const row = this.statements.getPlugin.get(id);
    return row ? pluginFromRow(row) : undefined;
  }

  private transactionHandle(): StoreTransaction {
    const s = this.statements;
    return {
      listPlugins: async () => s.listPlugins.all().map(pluginFromRow),
      getPlugin: async (id) => this.pluginNow(id),
      savePlugin: async (record) => {
        s.savePlugin.run(pluginToRow(record));
      },
      deletePlugin: async (id) => {
        s.deletePlugin.run(id);
        s.deleteScope.run(id);
        this.entries.dropPlugin(id);
      },
      catalogPolicy: async () =>
        policyOf(
          s.listScopes.all().map((row) => [row.plugin_id, JSON.parse(row.scope_json) as PluginScope] as const),
          s.listProfiles
            .all()
            .map((row) => ({ name: row.name, include: JSON.parse(row.include_json) as string[], exclude: JSON.parse(row.exclude_json) as string[] })),
        ),
      savePluginScope: async (pluginId, scope) => {
        const normal = normaliseScope(scope);
        if (isDefaultScope(normal)) s.deleteScope.run(pluginId);
        else s.saveScope.run(pluginId, JSON.stringify(normal));
      },
      saveProfile: async (profile) => {
        const normal = normaliseProfile(profile);
        s.saveProfile.run(normal.name, JSON.stringify(normal.include), JSON.stringify(normal.exclude));
      },
      deleteProfile: async (name) => {
        s.deleteProfile.run(name);
      },
      approvalRules: async () => this.approvals.rules(),
      saveApprovalRules: async (rules) => {
        this.approvals.saveRules(rules);
      },
      saveSession: async (session) => this.sessionNow(session),
      sessionsUsingProfile: async (name) => s.sessionsUsingProfile.all(name).map((row) => row.session_id),
      getConfig: async (pluginId) => this.entries.getConfig(pluginId),
      saveConfig: async (pluginId, config) => {
        this.entries.saveConfig(pluginId, config);
      },
      getWorkspaceConfig: async (pluginId, workspaceId) => this.entries.getWorkspaceConfig(pluginId, workspaceId),
      saveWorkspaceConfig: async (pluginId, workspaceId, config) => {
        this.entries.saveWorkspaceConfig(pluginId, workspaceId, config);
      },
      listWorkspaceConfigs: async (pluginId) => this.entries.listWorkspaceConfigs(pluginId),
      nextInstallSeq: async () => {
        const handedOut = s.getCounter.get('install_seq')?.value ?? 0;
        const stored = s.maxInstallSeq.get()?.seq ?? 0;
        const next = Math.max(handedOut, stored) + 1;
        s.setCounter.run('install_seq', next);
        return next;
      },
      catalogState: async () => {
        const row = s.getCatalog.get();
        return row && { generation: row.generation, revision: row.revision, contentHash: row.content_hash };
      },
      saveCatalogState: async (state: CatalogState) => {
        s.setCatalog.run(state.generation, state.revision, state.contentHash);
      },
    };
  }
}
