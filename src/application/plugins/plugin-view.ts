import type { PluginRecord as PluginRecordAnswer } from '../../api';
import { exposedToolName } from '../../domain/naming';
import { permissionsOf } from '../../domain/permissions';
import type { PluginRecord } from '../../domain/plugin-record';
import type { PluginInstance, SandboxFacts } from '../ports/plugin-runtime';
import type { ReplicaCopyView } from '../ports/replication';

/** A plugin as the operator API shows it: the record src/api declares (docs/http-api.md §4). */
export type PluginView = PluginRecordAnswer;

/** What a record answer says of the process serving the plugin here (docs/http-api.md §4): nulls when none runs. */
export interface ProcessFacts {
  pid: number | null;
  tls: boolean | null;
  /** How it runs or would run here; absent when the runtime does not say (unsandboxed). */
  sandbox?: SandboxFacts;
}

/** Whether the installed manifest asks for the network (`permissions.network`, docs/lifecycle.md). */
export function asksForNetwork(record: PluginRecord): boolean {
  return (record.manifest as { permissions?: { network?: unknown } }).permissions?.network === true;
}

/** The facts of `instance`, the one serving a plugin now (or none). */
export function processFacts(instance: PluginInstance | undefined): ProcessFacts {
  if (!instance) return { pid: null, tls: null };
  return { pid: instance.pid() ?? null, tls: instance.tls };
}

export function pluginView(record: PluginRecord, prefix: string, process: ProcessFacts, replicas?: ReplicaCopyView[]): PluginView {
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
    permissions: permissionsOf(record.manifest),
    pid: process.pid,
    tls: process.tls,
    uid: process.sandbox?.uid ?? null,
    sandbox: { mode: process.sandbox?.mode ?? 'none', network: process.sandbox?.network ?? true },
    ...(replicas ? { replicas } : {}),
    ...(record.manifest.runtime?.type === 'mcp-stdio' ? { server: record.server ?? null, tool_drift: record.tool_drift ?? null } : {}),
  };
}
