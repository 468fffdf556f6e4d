import type { PluginManifest } from './manifest';

const PLUGIN_STATUSES = ['registered', 'active', 'disabled', 'error'] as const;
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
  restart_count: number;
  /** Orders installs for the startup collision rule (the later-installed one goes to `error`). */
  install_seq: number;
  installed_at: string;
  updated_at: string;
}
