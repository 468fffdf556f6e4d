import type { CatalogState } from '../../domain/catalog-revisions';
import type { PluginManifest } from '../../domain/manifest';
import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { SessionRecord, SessionStatus } from '../../domain/session';
import type { Surface } from '../../domain/surfaces';

/** The columns of `plugins`, in the order of `pluginValues`. */
export const PLUGIN_COLUMNS = [
  'id',
  'version',
  'status',
  'enabled',
  'manifest',
  'package_sha256',
  'last_error',
  'restart_count',
  'install_seq',
  'installed_at',
  'updated_at',
] as const;

/** The columns of `sessions` the record holds, in the order of `sessionValues`. */
export const SESSION_COLUMNS = [
  'session_id',
  'task_id',
  'workspace_id',
  'surface',
  'status',
  'session_token_hash',
  'mcp_url',
  'launched',
  'agentctl_pid',
  'last_linked_at',
  'link_down_since',
  'created_at',
  'updated_at',
] as const;

type Row = Record<string, unknown>;

/** Query parameters for a plugin record; the manifest goes as JSON text so `json` keeps it byte for byte. */
export function pluginValues(record: PluginRecord): unknown[] {
  return PLUGIN_COLUMNS.map((column) => (column === 'manifest' ? JSON.stringify(record.manifest) : record[column]));
}

export function sessionValues(session: SessionRecord): unknown[] {
  return SESSION_COLUMNS.map((column) => session[column]);
}

/** A record from its row. pg parses `json` afresh for every row (so callers get copies) and returns `bigint` as text. */
export function pluginFromRow(row: Row): PluginRecord {
  return {
    id: row.id as string,
    version: row.version as string,
    status: row.status as PluginStatus,
    enabled: row.enabled as boolean,
    manifest: row.manifest as PluginManifest,
    package_sha256: row.package_sha256 as string,
    last_error: row.last_error as string | null,
    restart_count: row.restart_count as number,
    install_seq: Number(row.install_seq),
    installed_at: row.installed_at as string,
    updated_at: row.updated_at as string,
  };
}

export function sessionFromRow(row: Row): SessionRecord {
  return {
    session_id: row.session_id as string,
    task_id: row.task_id as string,
    workspace_id: row.workspace_id as string,
    surface: row.surface as Surface,
    status: row.status as SessionStatus,
    session_token_hash: row.session_token_hash as string,
    mcp_url: row.mcp_url as string | null,
    launched: row.launched as boolean,
    agentctl_pid: row.agentctl_pid as number | null,
    last_linked_at: row.last_linked_at as string | null,
    link_down_since: row.link_down_since as string | null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

export function catalogFromRow(row: Row): CatalogState {
  return { generation: row.generation as string, revision: Number(row.revision), contentHash: row.content_hash as string };
}
