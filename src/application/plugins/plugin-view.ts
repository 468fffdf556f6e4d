import type { Violation } from '../../domain/errors';
import { exposedToolName } from '../../domain/naming';
import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';

/** A plugin as the operator API shows it (CONTRACT §9); no value is `null`, never omitted. */
export interface PluginView {
  id: string;
  version: string;
  status: PluginStatus;
  display_name: string | null;
  description: string | null;
  last_error: string | null;
  /** When `last_error` was set; null with it. */
  last_error_at: string | null;
  restart_count: number;
  package_sha256: string;
  /** Exposed names of its declared tools, whatever its status. */
  tools: string[];
  installed_at: string;
  updated_at: string;
  /** What the installed manifest had that is not refused (unknown fields), `[]` when nothing. */
  warnings: Violation[];
}

export function pluginView(record: PluginRecord, prefix: string): PluginView {
  return {
    id: record.id,
    version: record.version,
    status: record.status,
    display_name: record.manifest.display_name ?? null,
    description: record.manifest.description ?? null,
    last_error: record.last_error,
    last_error_at: record.last_error_at,
    restart_count: record.restart_count,
    package_sha256: record.package_sha256,
    tools: record.manifest.agent_tools.map((tool) => exposedToolName(prefix, record.id, tool.name)).sort(),
    installed_at: record.installed_at,
    updated_at: record.updated_at,
    warnings: record.manifest.warnings ?? [],
  };
}
