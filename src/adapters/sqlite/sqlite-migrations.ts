import type Database from 'better-sqlite3';

/** One schema step; `version` is the `PRAGMA user_version` the file has once it ran. */
export interface SqliteMigration {
  version: number;
  up(db: Database.Database): void;
}

/**
 * Every schema step, oldest first. Append only: a shipped step is never edited, because
 * files written by an older Toolport replay only the steps they have not seen.
 */
const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE plugins (
          id             TEXT PRIMARY KEY,
          version        TEXT NOT NULL,
          status         TEXT NOT NULL,
          enabled        INTEGER NOT NULL,
          manifest_json  TEXT NOT NULL,
          install_dir    TEXT NOT NULL,
          package_sha256 TEXT NOT NULL,
          last_error     TEXT,
          restart_count  INTEGER NOT NULL,
          install_seq    INTEGER NOT NULL,
          installed_at   TEXT NOT NULL,
          updated_at     TEXT NOT NULL
        );
        CREATE TABLE counters (
          name  TEXT PRIMARY KEY,
          value INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    up(db) {
      // Only the hash of the session token is stored; the MCP token never is.
      db.exec(`
        CREATE TABLE sessions (
          session_id         TEXT PRIMARY KEY,
          task_id            TEXT NOT NULL,
          workspace_id       TEXT NOT NULL,
          surface            TEXT NOT NULL,
          status             TEXT NOT NULL,
          session_token_hash TEXT NOT NULL UNIQUE,
          control_token      TEXT,
          control_url        TEXT,
          mcp_url            TEXT,
          launched           INTEGER NOT NULL,
          agentctl_pid       INTEGER,
          created_at         TEXT NOT NULL,
          updated_at         TEXT NOT NULL
        );
        CREATE INDEX sessions_by_created_at ON sessions (created_at);
        CREATE INDEX plugins_by_install_seq ON plugins (install_seq);
      `);
    },
  },
  {
    version: 3,
    up(db) {
      // The catalog revision is raised in the transaction that commits the change causing it.
      db.exec(`
        CREATE TABLE catalog_state (
          id           INTEGER PRIMARY KEY CHECK (id = 1),
          generation   TEXT NOT NULL,
          revision     INTEGER NOT NULL,
          content_hash TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 4,
    up(db) {
      // Where a version lives is derived from the data dir and the manifest, never read back.
      db.exec('ALTER TABLE plugins DROP COLUMN install_dir');
    },
  },
  {
    version: 5,
    up(db) {
      // Catalog changes go over the agentctl's own link: no control URL or token is kept.
      // A session knows when its agentctl last linked, and since when its link is down.
      db.exec(`
        ALTER TABLE sessions DROP COLUMN control_token;
        ALTER TABLE sessions DROP COLUMN control_url;
        ALTER TABLE sessions ADD COLUMN last_linked_at TEXT;
        ALTER TABLE sessions ADD COLUMN link_down_since TEXT;
      `);
    },
  },
  {
    version: 6,
    up(db) {
      // Issue 16: configuration (sealed whole), the Host API's state and plugin secrets
      // (sealed per key), each secret beside the id of the key that sealed it. Keys compare
      // by their bytes (BINARY), the order ListState pages in.
      db.exec(`
        CREATE TABLE plugin_configs (
          plugin_id TEXT PRIMARY KEY,
          key_id    TEXT NOT NULL,
          data      TEXT NOT NULL
        );
        CREATE TABLE plugin_state (
          plugin_id  TEXT NOT NULL,
          key        TEXT NOT NULL,
          value_json TEXT NOT NULL,
          PRIMARY KEY (plugin_id, key)
        ) WITHOUT ROWID;
        CREATE TABLE plugin_secrets (
          plugin_id TEXT NOT NULL,
          key       TEXT NOT NULL,
          key_id    TEXT NOT NULL,
          data      TEXT NOT NULL,
          PRIMARY KEY (plugin_id, key)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 7,
    up(db) {
      // Links authenticate with SCRAM-SHA-256: the session's verifier, never its token. A
      // launched agentctl is known by pid and start time, so a reused pid is never signalled.
      db.exec(`
        ALTER TABLE sessions ADD COLUMN session_verifier TEXT NOT NULL DEFAULT '';
        ALTER TABLE sessions ADD COLUMN agentctl_start_time INTEGER;
      `);
    },
  },
  {
    version: 8,
    up(db) {
      // The console shows when a plugin's last error happened; an error stored before has no time.
      db.exec('ALTER TABLE plugins ADD COLUMN last_error_at TEXT');
    },
  },
  {
    version: 9,
    up(db) {
      // The replica that follows a session's agentctl (docs/operations.md §10); null on a backend alone.
      db.exec('ALTER TABLE sessions ADD COLUMN agentctl_replica TEXT');
    },
  },
  {
    version: 10,
    up(db) {
      // Scopes (docs/catalog-and-sessions.md, "Scopes"): a plugin's workspaces and disabled
      // tools (no row = every workspace, nothing disabled), the profiles, and each session's profile.
      db.exec(`
        CREATE TABLE plugin_scopes (
          plugin_id  TEXT PRIMARY KEY,
          scope_json TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE profiles (
          name         TEXT PRIMARY KEY,
          include_json TEXT NOT NULL,
          exclude_json TEXT NOT NULL
        ) WITHOUT ROWID;
        ALTER TABLE sessions ADD COLUMN profile TEXT NOT NULL DEFAULT 'default';
      `);
    },
  },
  {
    version: 11,
    up(db) {
      // Per-workspace configuration and scoped Host entries (docs/plugin-protocol.md, "Host API
      // scopes"): each workspace's overrides sealed whole, and each state entry and plugin secret
      // owned by a scope (`instance`, `workspace`, `task`) and scope id ('' for the instance,
      // where every entry stored before belongs).
      db.exec(`
        CREATE TABLE plugin_workspace_configs (
          plugin_id    TEXT NOT NULL,
          workspace_id TEXT NOT NULL,
          key_id       TEXT NOT NULL,
          data         TEXT NOT NULL,
          PRIMARY KEY (plugin_id, workspace_id)
        ) WITHOUT ROWID;
        CREATE TABLE plugin_state_scoped (
          plugin_id  TEXT NOT NULL,
          scope      TEXT NOT NULL,
          scope_id   TEXT NOT NULL,
          key        TEXT NOT NULL,
          value_json TEXT NOT NULL,
          PRIMARY KEY (plugin_id, scope, scope_id, key)
        ) WITHOUT ROWID;
        INSERT INTO plugin_state_scoped (plugin_id, scope, scope_id, key, value_json)
          SELECT plugin_id, 'instance', '', key, value_json FROM plugin_state;
        DROP TABLE plugin_state;
        ALTER TABLE plugin_state_scoped RENAME TO plugin_state;
        CREATE TABLE plugin_secrets_scoped (
          plugin_id TEXT NOT NULL,
          scope     TEXT NOT NULL,
          scope_id  TEXT NOT NULL,
          key       TEXT NOT NULL,
          key_id    TEXT NOT NULL,
          data      TEXT NOT NULL,
          PRIMARY KEY (plugin_id, scope, scope_id, key)
        ) WITHOUT ROWID;
        INSERT INTO plugin_secrets_scoped (plugin_id, scope, scope_id, key, key_id, data)
          SELECT plugin_id, 'instance', '', key, key_id, data FROM plugin_secrets;
        DROP TABLE plugin_secrets;
        ALTER TABLE plugin_secrets_scoped RENAME TO plugin_secrets;
      `);
    },
  },
  {
    version: 12,
    up(db) {
      // An MCP server plugin's `server` {name, version} from its last initialize (docs/plugin-protocol.md); null for others.
      db.exec('ALTER TABLE plugins ADD COLUMN server_json TEXT');
    },
  },
  {
    version: 13,
    up(db) {
      // An MCP server plugin's held `tool_drift` (docs/lifecycle.md, Pinned tools and drift); null when none.
      db.exec('ALTER TABLE plugins ADD COLUMN tool_drift_json TEXT');
    },
  },
  {
    version: 14,
    up(db) {
      // Approvals (docs/approvals.md): the rules as one ordered list (no row = no rules), and each
      // approval request with its state; a request keeps the arguments' hash, never the arguments.
      db.exec(`
        CREATE TABLE approval_rules (
          id         INTEGER PRIMARY KEY CHECK (id = 1),
          rules_json TEXT NOT NULL
        );
        CREATE TABLE approval_requests (
          id               TEXT PRIMARY KEY,
          session_id       TEXT NOT NULL,
          task_id          TEXT NOT NULL,
          workspace_id     TEXT NOT NULL,
          profile          TEXT NOT NULL,
          tool             TEXT NOT NULL,
          plugin_id        TEXT NOT NULL,
          arguments_sha256 TEXT NOT NULL,
          created_at       TEXT NOT NULL,
          expires_at       TEXT NOT NULL,
          state            TEXT NOT NULL,
          decided_by       TEXT,
          reason           TEXT,
          holder           TEXT
        ) WITHOUT ROWID;
        CREATE INDEX approval_requests_pending ON approval_requests (state, created_at);
      `);
    },
  },
];

/** The schema version this build writes. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1].version;

/**
 * Brings `db` up to `targetVersion` (default: the latest), each step in its own transaction
 * together with the `user_version` bump, so a crash mid-way leaves a file at a known version.
 * Refuses a file written by a newer Toolport rather than guessing at its schema.
 */
export function migrateSqliteSchema(db: Database.Database, targetVersion = SQLITE_SCHEMA_VERSION): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SQLITE_SCHEMA_VERSION) {
    throw new Error(`the store has schema version ${current}, newer than this Toolport's ${SQLITE_SCHEMA_VERSION}; upgrade Toolport`);
  }
  for (const step of SQLITE_MIGRATIONS) {
    if (step.version <= current || step.version > targetVersion) continue;
    db.transaction(() => {
      step.up(db);
      db.pragma(`user_version = ${step.version}`);
    })();
  }
  return db.pragma('user_version', { simple: true }) as number;
}
