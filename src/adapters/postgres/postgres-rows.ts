import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';

/** The columns of `plugins`, in the order of `pluginValues`. */
export const PLUGIN_COLUMNS = [
  'id',
  'version',
  'status',
  'enabled',
  'manifest',
  'package_sha256',
  'last_error',
  'last_error_at',
  'restart_count',
  'install_seq',
  'installed_at',
  'updated_at',
  'server',
  'tool_drift',
] as const;

/** The columns of `sessions` the record holds, in the order of `sessionValues`. */
export const SESSION_COLUMNS = [
  'session_id',
  'task_id',
  'workspace_id',
  'surface',
  'profile',
  'status',
  'session_token_hash',
  'session_verifier',
  'mcp_url',
  'launched',
  'agentctl_pid',
  'agentctl_start_time',
  'agentctl_replica',
  'last_linked_at',
  'link_down_since',
  'created_at',
  'updated_at',
] as const;

type Row = Record<string, unknown>;

/** Query parameters for a plugin record; the manifest goes as JSON text so `json` keeps it byte for byte. */
export function pluginValues(record: PluginRecord): unknown[] {
  return PLUGIN_COLUMNS.map((column) => {
    if (column === 'manifest') return JSON.stringify(record.manifest);
    if (column === 'server') return record.server ? JSON.stringify(record.server) : null;
    if (column === 'tool_drift') return record.tool_drift ? JSON.stringify(record.tool_drift) : null;
    return record[column];
  });
}

/** Inserts a session, or replaces every column but the id of the one with the same id (keeping its `seq`). */
export const SESSION_UPSERT = `INSERT INTO sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (session_id) DO UPDATE SET ${SESSION_COLUMNS.filter((c) => c !== 'session_id')
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

export function sessionValues(session: SessionRecord): unknown[] {
  return SESSION_COLUMNS.map((column) => session[column]);
}

/** The named columns of `row`: pg already hands back booleans, integers and nulls as the record has them. */
function pick<T>(row: Row, columns: readonly string[]): T {
  return Object.fromEntries(columns.map((column) => [column, row[column]])) as T;
}

/** A record from its row. pg parses `json` afresh for every row (so callers get copies) and returns `bigint` as text. */
export function pluginFromRow(row: Row): PluginRecord {
  const record = pick<PluginRecord>(row, PLUGIN_COLUMNS);
  const { server, tool_drift, ...rest } = record;
  // Left out when null, like a record built without them: only an MCP server has them.
  return { ...rest, install_seq: Number(record.install_seq), ...(server ? { server } : {}), ...(tool_drift ? { tool_drift } : {}) };
}

export function sessionFromRow(row: Row): SessionRecord {
  const record = pick<SessionRecord>(row, SESSION_COLUMNS);
  return { ...record, agentctl_start_time: record.agentctl_start_time === null ? null : Number(record.agentctl_start_time) };
}

export function catalogFromRow(row: Row): CatalogState {
  return { generation: row.generation as string, revision: Number(row.revision), contentHash: row.content_hash as string };
}
