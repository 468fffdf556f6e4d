import type { PluginManifest } from './manifest';
import type { ToolDrift } from './tool-drift';

export const PLUGIN_STATUSES = ['registered', 'active', 'disabled', 'error', 'needs_config'] as const;
/**
 * `needs_config`: installed and enabled, but its stored configuration does not satisfy its
 * `config_schema` (docs/lifecycle.md), so no process runs until a valid one is set.
 */
export type PluginStatus = (typeof PLUGIN_STATUSES)[number];

/** An installed plugin as the backend stores it. Times are ISO 8601 UTC strings. */
export interface PluginRecord {
  id: string;
  version: string;
  status: PluginStatus;
  /** False once an operator disabled it; an enabled plugin is started at every backend start. */
  enabled: boolean;
  manifest: PluginManifest;
  package_sha256: string;
  last_error: string | null;
  /** When `last_error` was last set (each crash, failed start or missing configuration anew); null with it. */
  last_error_at: string | null;
  restart_count: number;
  /** Orders installs for the startup collision rule (the later-installed one goes to `error`). */
  install_seq: number;
  installed_at: string;
  updated_at: string;
  /**
   * MCP server plugins: `serverInfo` `{name, version}` of the server's last successful
   * `initialize` (docs/plugin-protocol.md, MCP servers); null before the first and for every
   * other plugin. Left out (and answered so by every store) while null.
   */
  server?: McpServerInfo | null;
  /**
   * MCP server plugins: how the server's last list differs from the pinned tools agents are
   * served (docs/lifecycle.md, Pinned tools and drift); null while it matches and for every
   * other plugin. Left out (and answered so by every store) while null.
   */
  tool_drift?: HeldToolDrift | null;
}

/** A drift the record holds until an operator accepts it, and since when it has been held. */
export interface HeldToolDrift extends ToolDrift {
  /** When a list first differed from the pinned tools (kept while it keeps differing); ISO 8601 UTC. */
  detected_at: string;
}

/** What an MCP server says it is in its `initialize` answer. */
export interface McpServerInfo {
  name: string;
  version: string;
}
