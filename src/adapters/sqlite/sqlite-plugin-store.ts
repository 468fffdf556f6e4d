import Database from 'better-sqlite3';
import { PluginStore } from '../../application/ports/plugin-store';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';
import { migrateSqliteSchema } from './sqlite-migrations';
import { type PluginRow, type SessionRow, pluginFromRow, pluginToRow, sessionFromRow, sessionToRow } from './sqlite-rows';

const PLUGIN_COLUMNS =
  'id, version, status, enabled, manifest_json, install_dir, package_sha256, last_error, restart_count, install_seq, installed_at, updated_at';
const SESSION_COLUMNS =
  'session_id, task_id, workspace_id, surface, status, session_token_hash, control_token, control_url, mcp_url, launched, agentctl_pid, created_at, updated_at';

function placeholders(columns: string): string {
  return columns
    .split(', ')
    .map((c) => `@${c}`)
    .join(', ');
}

/**
 * The default PluginStore: one SQLite file (WAL mode) opened by the single backend process.
 * Every write is one transaction, so a crash never leaves half a record.
 */
export class SqlitePluginStore extends PluginStore {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(filePath: string) {
    super();
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
  }

  private prepare() {
    const db = this.db;
    return {
      listPlugins: db.prepare<[], PluginRow>(`SELECT ${PLUGIN_COLUMNS} FROM plugins ORDER BY install_seq, id`),
      getPlugin: db.prepare<[string], PluginRow>(`SELECT ${PLUGIN_COLUMNS} FROM plugins WHERE id = ?`),
      savePlugin: db.prepare<PluginRow>(`INSERT OR REPLACE INTO plugins (${PLUGIN_COLUMNS}) VALUES (${placeholders(PLUGIN_COLUMNS)})`),
      deletePlugin: db.prepare<[string]>('DELETE FROM plugins WHERE id = ?'),
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
      insertSession: db.prepare<SessionRow>(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (${placeholders(SESSION_COLUMNS)})`),
      getCounter: db.prepare<[string], { value: number }>('SELECT value FROM counters WHERE name = ?'),
      setCounter: db.prepare<[string, number]>('INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
    };
  }

  override listPlugins(): PluginRecord[] {
    return this.statements.listPlugins.all().map(pluginFromRow);
  }

  override getPlugin(id: string): PluginRecord | undefined {
    const row = this.statements.getPlugin.get(id);
    return row ? pluginFromRow(row) : undefined;
  }

  override savePlugin(record: PluginRecord): void {
    this.db.transaction(() => this.statements.savePlugin.run(pluginToRow(record)))();
  }

  override deletePlugin(id: string): void {
    this.db.transaction(() => this.statements.deletePlugin.run(id))();
  }

  override nextInstallSeq(): number {
    return this.db.transaction(() => {
      const handedOut = this.statements.getCounter.get('install_seq')?.value ?? 0;
      const stored = this.statements.maxInstallSeq.get()?.seq ?? 0;
      const next = Math.max(handedOut, stored) + 1;
      this.statements.setCounter.run('install_seq', next);
      return next;
    })();
  }

  override listSessions(): SessionRecord[] {
    return this.statements.listSessions.all().map(sessionFromRow);
  }

  override getSession(sessionId: string): SessionRecord | undefined {
    const row = this.statements.getSession.get(sessionId);
    return row ? sessionFromRow(row) : undefined;
  }

  override findSessionByTokenHash(tokenHash: string): SessionRecord | undefined {
    const row = this.statements.sessionByTokenHash.get(tokenHash);
    return row ? sessionFromRow(row) : undefined;
  }

  override saveSession(session: SessionRecord): void {
    const row = sessionToRow(session);
    this.db.transaction(() => {
      if (this.statements.updateSession.run(row).changes === 0) this.statements.insertSession.run(row);
    })();
  }

  override incrementBootCounter(): number {
    return this.db.transaction(() => {
      const next = (this.statements.getCounter.get('boot')?.value ?? 0) + 1;
      this.statements.setCounter.run('boot', next);
      return next;
    })();
  }

  override close(): void {
    if (this.db.open) this.db.close();
  }
}
