import type { ClientBase } from 'pg';
import { HOST_ENTRIES_SCHEMA } from './postgres-host-entries';
import { inTransaction, MIGRATION_LOCK } from './postgres-locks';

/** One schema step; `version` is what `toolport_schema` says once it ran. */
export interface PostgresMigration {
  version: number;
  up(client: ClientBase): Promise<unknown>;
}

/**
 * Every schema step, oldest first. Append only: a shipped step is never edited, because a
 * database written by an older Toolport replays only the steps it has not seen.
 *
 * Texts are kept as given (timestamps are the ISO strings the domain wrote, the manifest is
 * `json`, not `jsonb`, so its bytes and key order come back unchanged).
 */
const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    up: (client) =>
      client.query(`
        CREATE TABLE plugins (
          id             text PRIMARY KEY,
          version        text NOT NULL,
          status         text NOT NULL,
          enabled        boolean NOT NULL,
          manifest       json NOT NULL,
          package_sha256 text NOT NULL,
          last_error     text,
          restart_count  integer NOT NULL,
          install_seq    bigint NOT NULL,
          installed_at   text NOT NULL,
          updated_at     text NOT NULL
        );
        CREATE INDEX plugins_by_install_seq ON plugins (install_seq);
        CREATE TABLE counters (
          name  text PRIMARY KEY,
          value bigint NOT NULL
        );
        -- One row: the catalog is one for every backend on this database, and its revision is
        -- raised in the transaction that commits the change causing it.
        CREATE TABLE catalog_state (
          id           integer PRIMARY KEY CHECK (id = 1),
          generation   text NOT NULL,
          revision     bigint NOT NULL,
          content_hash text NOT NULL
        );
        -- Only the hash of the session token is stored. seq keeps the insertion order among
        -- sessions created in the same millisecond.
        CREATE TABLE sessions (
          session_id         text PRIMARY KEY,
          seq                bigserial NOT NULL,
          task_id            text NOT NULL,
          workspace_id       text NOT NULL,
          surface            text NOT NULL,
          status             text NOT NULL,
          session_token_hash text NOT NULL UNIQUE,
          mcp_url            text,
          launched           boolean NOT NULL,
          agentctl_pid       integer,
          last_linked_at     text,
          link_down_since    text,
          created_at         text NOT NULL,
          updated_at         text NOT NULL
        );
        CREATE INDEX sessions_by_created_at ON sessions (created_at, seq);
      `),
  },
  {
    version: 2,
    // Replicas share no disk: each unpacks a plugin from the package bytes kept here, found by
    // the digest its record names. A package no record names any more can be deleted.
    up: (client) =>
      client.query(`
        CREATE TABLE packages (
          sha256     text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
          plugin_id  text NOT NULL,
          version    text NOT NULL,
          size_bytes bigint NOT NULL CHECK (size_bytes = octet_length(tgz)),
          tgz        bytea NOT NULL,
          stored_at  text NOT NULL
        );
        CREATE INDEX packages_by_plugin ON packages (plugin_id, version);
      `),
  },
  {
    version: 3,
    // Issue 16: each plugin's configuration, Host state and secrets, kept with its record.
    up: (client) => client.query(HOST_ENTRIES_SCHEMA),
  },
  {
    version: 4,
    // Links authenticate with SCRAM-SHA-256: the session's verifier, never its token. A
    // launched agentctl is known by pid and start time (clock ticks since boot, which can
    // pass 2^31), so a reused pid is never signalled.
    up: (client) =>
      client.query(`
        ALTER TABLE sessions ADD COLUMN session_verifier text NOT NULL DEFAULT '';
        ALTER TABLE sessions ADD COLUMN agentctl_start_time bigint;
      `),
  },
  {
    version: 5,
    // The console shows when a plugin's last error happened; an error stored before has no time.
    up: (client) => client.query('ALTER TABLE plugins ADD COLUMN last_error_at text'),
  },
  {
    version: 6,
    // Replicas (docs/operations.md §10): who is live (a heartbeat in the database's own clock, so the
    // replicas' clocks need not agree) and what each one's copy of each plugin is doing.
    up: (client) =>
      client.query(`
        CREATE TABLE replicas (
          id           text PRIMARY KEY,
          url          text NOT NULL,
          pid          integer NOT NULL,
          started_at   timestamptz NOT NULL DEFAULT now(),
          heartbeat_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE replica_copies (
          replica_id text NOT NULL REFERENCES replicas (id) ON DELETE CASCADE,
          plugin_id  text NOT NULL,
          status     text NOT NULL,
          pid        integer,
          PRIMARY KEY (replica_id, plugin_id)
        );
      `),
  },
  {
    version: 7,
    // The replica that follows a session's agentctl (docs/operations.md §10): a live one adopts
    // the agentctls of a replica that is gone.
    up: (client) => client.query('ALTER TABLE sessions ADD COLUMN agentctl_replica text'),
  },
  {
    version: 8,
    // Scopes (docs/catalog-and-sessions.md, "Scopes"): a plugin's workspaces and disabled tools
    // (no row = every workspace, nothing disabled), the profiles, and each session's profile.
    up: (client) =>
      client.query(`
        CREATE TABLE plugin_scopes (
          plugin_id text PRIMARY KEY,
          scope     json NOT NULL
        );
        CREATE TABLE profiles (
          name    text PRIMARY KEY,
          include json NOT NULL,
          exclude json NOT NULL
        );
        ALTER TABLE sessions ADD COLUMN profile text NOT NULL DEFAULT 'default';
      `),
  },
  {
    version: 9,
    // Per-workspace configuration and scoped Host entries (docs/plugin-protocol.md, "Host API
    // scopes"): each workspace's overrides sealed whole, and each state entry and plugin secret
    // owned by a scope and scope id ('' for the instance, where every entry stored before belongs).
    up: (client) =>
      client.query(`
        CREATE TABLE plugin_workspace_configs (
          plugin_id    text NOT NULL,
          workspace_id text COLLATE "C" NOT NULL,
          key_id       text NOT NULL,
          data         text NOT NULL,
          PRIMARY KEY (plugin_id, workspace_id)
        );
        ALTER TABLE plugin_state ADD COLUMN scope text NOT NULL DEFAULT 'instance', ADD COLUMN scope_id text COLLATE "C" NOT NULL DEFAULT '';
        ALTER TABLE plugin_state DROP CONSTRAINT plugin_state_pkey, ADD PRIMARY KEY (plugin_id, scope, scope_id, key);
        ALTER TABLE plugin_secrets ADD COLUMN scope text NOT NULL DEFAULT 'instance', ADD COLUMN scope_id text COLLATE "C" NOT NULL DEFAULT '';
        ALTER TABLE plugin_secrets DROP CONSTRAINT plugin_secrets_pkey, ADD PRIMARY KEY (plugin_id, scope, scope_id, key);
      `),
  },
  {
    version: 10,
    // An MCP server plugin's `server` {name, version} from its last initialize (docs/plugin-protocol.md); null for others.
    up: (client) => client.query('ALTER TABLE plugins ADD COLUMN server json'),
  },
  {
    version: 11,
    // An MCP server plugin's held `tool_drift` (docs/lifecycle.md, Pinned tools and drift); null when none.
    up: (client) => client.query('ALTER TABLE plugins ADD COLUMN tool_drift json'),
  },
  {
    version: 12,
    // Approvals (docs/approvals.md): the rules as one ordered list (no row = no rules), and each
    // approval request with its state; a request keeps the arguments' hash, never the arguments.
    up: (client) =>
      client.query(`
        CREATE TABLE approval_rules (
          id    integer PRIMARY KEY CHECK (id = 1),
          rules json NOT NULL
        );
        CREATE TABLE approval_requests (
          id               text PRIMARY KEY,
          session_id       text NOT NULL,
          task_id          text NOT NULL,
          workspace_id     text NOT NULL,
          profile          text NOT NULL,
          tool             text NOT NULL,
          plugin_id        text NOT NULL,
          arguments_sha256 text NOT NULL,
          created_at       text NOT NULL,
          expires_at       text NOT NULL,
          state            text NOT NULL,
          decided_by       text,
          reason           text,
          holder           text
        );
        CREATE INDEX approval_requests_pending ON approval_requests (state, created_at);
      `),
  },
];

/** The schema version this build writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1].version;

async function storedVersion(client: ClientBase): Promise<number> {
  await client.query('CREATE TABLE IF NOT EXISTS toolport_schema (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)');
  const { rows } = await client.query<{ version: number }>('SELECT version FROM toolport_schema WHERE id = 1');
  return rows[0]?.version ?? 0;
}

function refuseNewer(version: number): void {
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new Error(`the store has schema version ${version}, newer than this Toolport's ${POSTGRES_SCHEMA_VERSION}; upgrade Toolport`);
  }
}

/**
 * Brings the database up to `targetVersion` (default: the latest), each step in its own
 * transaction with the version bump, so a failure mid-way leaves a known version. Backends
 * starting at once take turns (an advisory lock) and each step re-reads the version, so a step
 * runs once. Refuses a database written by a newer Toolport rather than guessing at its schema.
 */
export async function migratePostgresSchema(client: ClientBase, targetVersion = POSTGRES_SCHEMA_VERSION): Promise<number> {
  refuseNewer(await inTransaction(client, MIGRATION_LOCK, () => storedVersion(client)));
  for (const step of POSTGRES_MIGRATIONS) {
    if (step.version > targetVersion) break;
    await inTransaction(client, MIGRATION_LOCK, async () => {
      const current = await storedVersion(client);
      refuseNewer(current);
      if (current >= step.version) return;
      await step.up(client);
      await client.query('INSERT INTO toolport_schema (id, version) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET version = excluded.version', [step.version]);
    });
  }
  return inTransaction(client, MIGRATION_LOCK, () => storedVersion(client));
}
