import type { PluginManifest } from '../../domain/manifest';
import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { SessionRecord, SessionStatus } from '../../domain/session';
import type { Surface } from '../../domain/surfaces';

/** A `plugins` row as SQLite hands it back (booleans are integers, the manifest is JSON). */
export interface PluginRow {
  id: string;
  version: string;
  status: string;
  enabled: number;
  manifest_json: string;
  package_sha256: string;
  last_error: string | null;
  restart_count: number;
  install_seq: number;
  installed_at: string;
  updated_at: string;
}

export interface SessionRow {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: string;
  status: string;
  session_token_hash: string;
  session_verifier: string;
  mcp_url: string | null;
  launched: number;
  agentctl_pid: number | null;
  agentctl_start_time: number | null;
  last_linked_at: string | null;
  link_down_since: string | null;
  created_at: string;
  updated_at: string;
}

export function pluginToRow(record: PluginRecord): PluginRow {
  const { manifest, enabled, ...rest } = record;
  return { ...rest, enabled: enabled ? 1 : 0, manifest_json: JSON.stringify(manifest) };
}

export function pluginFromRow(row: PluginRow): PluginRecord {
  return {
    id: row.id,
    version: row.version,
    status: row.status as PluginStatus,
    enabled: row.enabled !== 0,
    manifest: JSON.parse(row.manifest_json) as PluginManifest,
    package_sha256: row.package_sha256,
    last_error: row.last_error,
    restart_count: row.restart_count,
    install_seq: row.install_seq,
    installed_at: row.installed_at,
    updated_at: row.updated_at,
  };
}

export function sessionToRow(session: SessionRecord): SessionRow {
  return { ...session, launched: session.launched ? 1 : 0 };
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return {
    session_id: row.session_id,
    task_id: row.task_id,
    workspace_id: row.workspace_id,
    surface: row.surface as Surface,
    status: row.status as SessionStatus,
    session_token_hash: row.session_token_hash,
    session_verifier: row.session_verifier,
    mcp_url: row.mcp_url,
    launched: row.launched !== 0,
    agentctl_pid: row.agentctl_pid,
    agentctl_start_time: row.agentctl_start_time,
    last_linked_at: row.last_linked_at,
    link_down_since: row.link_down_since,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
