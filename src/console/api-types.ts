/** The shapes the backend's API answers with (docs/http-api.md), as far as the console reads them. */

export type PluginStatus = 'registered' | 'active' | 'disabled' | 'error' | 'needs_config';

export interface Plugin {
  id: string;
  version: string;
  status: PluginStatus;
  display_name: string | null;
  description: string | null;
  last_error: string | null;
  /** When `last_error` was set; null with it. */
  last_error_at: string | null;
  restart_count: number;
  tools: string[];
  installed_at: string;
  updated_at: string;
}

export interface CatalogTool {
  plugin_id: string;
  plugin_version: string;
  local_name: string;
  exposed_name: string;
  title?: string;
  description: string;
  surfaces: string[];
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  annotations: Record<string, boolean>;
}

export interface Catalog {
  generation: string;
  revision: number;
  tools: CatalogTool[];
}

export interface Session {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: string;
  status: 'starting' | 'live' | 'dead' | 'stopped';
  launched: boolean;
  last_linked_at: string | null;
  created_at: string;
  updated_at: string;
}

export type CallOutcome = 'success' | 'tool_error' | 'error' | 'cancelled';

export interface Call {
  invocation_id: string;
  time: string;
  session_id: string;
  task_id: string;
  plugin_id: string;
  tool: string;
  exposed_name: string;
  outcome: CallOutcome;
  code: string | null;
  duration_ms: number;
}

export interface CallTotals {
  total: number;
  by_outcome: Record<CallOutcome, number>;
  by_code: Record<string, number>;
}

export interface LogRecord {
  time: string;
  level: string;
  msg: string;
  plugin_id: string;
  [field: string]: unknown;
}

export interface Snapshot {
  plugins: Plugin[];
  sessions: Session[];
  catalog: Catalog;
  calls: Call[];
  call_totals: CallTotals;
}

export interface ConfigSchemaView {
  schema: Record<string, unknown> | null;
  secrets: string[];
}
