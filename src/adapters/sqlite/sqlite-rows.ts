import type { PluginManifest } from '../../domain/manifest';
import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { SessionRecord, SessionStatus } from '../../domain/session';
import type { Surface } from '../../domain/surfaces';

/** A `plugins` row as SQLite hands it back (booleans are integers, the manifest is JSON). */
export type PluginRow = Omit<PluginRecord, 'status' | 'enabled' | 'manifest'> & { status: string; enabled: number; manifest_json: string };

/** A `sessions` row: the record's fields, with `launched` an integer and the enumerations plain text. */
export type SessionRow = Omit<SessionRecord, 'surface' | 'status' | 'launched'> & { surface: string; status: string; launched: number };

export function pluginToRow(record: PluginRecord): PluginRow {
  const { manifest, enabled, ...rest } = record;
  return { ...rest, enabled: enabled ? 1 : 0, manifest_json: JSON.stringify(manifest) };
}

export function pluginFromRow(row: PluginRow): PluginRecord {
  const { manifest_json, enabled, status, ...rest } = row;
  return { ...rest, status: status as PluginStatus, enabled: enabled !== 0, manifest: JSON.parse(manifest_json) as PluginManifest };
}

export function sessionToRow(session: SessionRecord): SessionRow {
  return { ...session, launched: session.launched ? 1 : 0 };
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  const { surface, status, launched, ...rest } = row;
  return { ...rest, surface: surface as Surface, status: status as SessionStatus, launched: launched !== 0 };
}
