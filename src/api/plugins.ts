import type { AgentToolDeclaration, JsonObject, PluginPermissions, PluginStatus, Violation } from './domain-shapes';

/** One live replica's copy of a plugin, on a store replicas share. */
export interface ReplicaCopy {
  id: string;
  status: PluginStatus;
  pid: number | null;
}

/** The plugin record (docs/http-api.md §4): every field present, `null` when it has no value. */
export interface PluginRecord {
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
  /** The exposed names of every tool it declares, sorted, whatever its status. */
  tools: string[];
  installed_at: string;
  updated_at: string;
  /** What the installed manifest has that is not refused but probably a mistake; `[]` when nothing. */
  warnings: Violation[];
  /**
   * What the installed version may reach beyond its own folders, as its manifest declares it
   * (granted at install or upgrade): every key present, `false` / `[]` for what it does not ask.
   */
  permissions: PluginPermissions;
  /** The pid of the process serving it on the backend that answers; null when none runs there. */
  pid: number | null;
  /** Whether that process's gRPC link is mutual TLS; null when none runs. */
  tls: boolean | null;
  /** The user id of its own it runs as under a root backend (docs/operations.md); null otherwise. */
  uid: number | null;
  /** How it runs or would run here: in bubblewrap or not, with the host's network or not. */
  sandbox: { mode: 'bwrap' | 'none'; network: boolean };
  /** Only on a store replicas share: each live replica's copy (`status` is then the desired one). */
  replicas?: ReplicaCopy[];
  /** MCP server plugins only: `{name, version}` from the server's last successful `initialize`; null before the first. */
  server?: { name: string; version: string } | null;
  /**
   * MCP server plugins only: how the server's last list differs from the pinned tools agents
   * are served (sorted local names), and since when; null while it matches.
   */
  tool_drift?: { added: string[]; removed: string[]; changed: string[]; detected_at: string } | null;
}

/** `GET /api/v1/plugins/:id/info`: the record, its declared tools, and the process serving it now. */
export interface PluginDetails extends PluginRecord {
  /** As the installed manifest declares them, validated, each with the name agents call it by. */
  agent_tools: Array<AgentToolDeclaration & { exposed_name: string }>;
  /** Where the host reaches its process: `unix` (a socket in a private folder) or `tcp` (127.0.0.1); null while none runs or when unknown. */
  network: 'unix' | 'tcp' | null;
  process: { pid: number | null; started_at: string | null };
}

/** `GET /api/v1/plugins/:id/config`: the keys that have a value, each secret as the mask. */
export interface PluginConfig {
  values: JsonObject;
}

/** `GET /api/v1/plugins/:id/config/workspaces`: the workspaces with configuration overrides, in byte order. */
export interface PluginConfigWorkspaces {
  workspaces: string[];
}

/** `GET /api/v1/plugins/:id/config/schema`. */
export interface PluginConfigSchema {
  /** The installed version's `config_schema`; null when it declares none. */
  schema: JsonObject | null;
  /** Its secret keys, sorted. */
  secrets: string[];
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** One log record the backend kept about a plugin: these four fields, then those of the record it wrote. */
export interface LogRecord {
  time: string;
  level: LogLevel;
  msg: string;
  plugin_id: string;
  [field: string]: unknown;
}
