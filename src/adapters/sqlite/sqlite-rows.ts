import type { PluginManifest } from '../../domain/manifest';
import type { HeldToolDrift, McpServerInfo, PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { SessionRecord, SessionStatus } from '../../domain/session';
import type { Surface } from '../../domain/surfaces';

/** A `plugins` row as SQLite hands it back (booleans are integers, the manifest is JSON). */
export type PluginRow = Omit<PluginRecord, 'status' | 'enabled' | 'manifest' | 'server' | 'tool_drift'> & {
  status: string;
  enabled: number;
  manifest_json: string;
  server_json: string | null;
  tool_drift_json: string | null;
};

/** A `sessions` row: the record's fields, with `launched` an integer and the enumerations plain text. */
export type SessionRow = Omit<SessionRecord, 'surface' | 'status' | 'launched'> & { surface: string; status: string; launched: number };

export function pluginToRow(record: PluginRecord): PluginRow {
  const { manifest, enabled, server, tool_drift, ...rest } = record;
  return {
    ...rest,
    enabled: enabled ? 1 : 0,
    manifest_json: JSON.stringify(manifest),
    server_json: server ? JSON.stringify(server) : null,
    tool_drift_json: tool_drift ? JSON.stringify(tool_drift) : null,
  };
}

export function pluginFromRow(row: PluginRow): PluginRecord {
  const { manifest_json, enabled, status, server_json, tool_drift_json, ...rest } = row;
  return {
    ...rest,
    status: status as PluginStatus,
    enabled: enabled !== 0,
    manifest: JSON.parse(manifest_json) as PluginManifest,
    // Left out when null, like a record built without it: only an MCP server has one.
    ...(server_json === null ? {} : { server: JSON.parse(server_json) as McpServerInfo }),
    ...(tool_drift_json === null ? {} : { tool_drift: JSON.parse(tool_drift_json) as HeldToolDrift }),
  };
}

export function sessionToRow(session: SessionRecord): SessionRow {
  return { ...session, launched: session.launched ? 1 : 0 };
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  const { surface, status, launched, ...rest } = row;
  return { ...rest, surface: surface as Surface, status: status as SessionStatus, launched: launched !== 0 };
}
