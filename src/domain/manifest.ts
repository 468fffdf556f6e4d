import type { Violation } from './errors';
import type { PluginPermissions } from './permissions';
import type { JsonObject } from './json';
import type { ToolSurface } from './surfaces';

/** Tool behaviour hints, always fully resolved (docs/plugin-protocol.md §2 defaults applied). */
export interface ToolAnnotations {
  read_only_hint: boolean;
  destructive_hint: boolean;
  idempotent_hint: boolean;
  open_world_hint: boolean;
}

/** One `agent_tools[]` entry after validation. */
export interface AgentToolDeclaration {
  name: string;
  title?: string;
  description: string;
  /** Sorted, no duplicates. */
  surfaces: ToolSurface[];
  input_schema: JsonObject;
  output_schema?: JsonObject;
  annotations: ToolAnnotations;
}

export interface PluginRuntimeSpec {
  type: 'binary';
  /** `<platform>-<arch>` (Node's names) or `any` → path relative to the package root. */
  executables: Record<string, string>;
  args: string[];
}

/** A validated `manifest.yaml` (docs/plugin-protocol.md §2); unknown fields are dropped. */
export interface PluginManifest {
  api_version: 1;
  id: string;
  version: string;
  display_name?: string;
  description?: string;
  min_toolport_version?: string;
  runtime?: PluginRuntimeSpec;
  capabilities?: JsonObject;
  /** JSON Schema of the plugin's configuration (object root); see config-fields.ts for its secrets. */
  config_schema?: JsonObject;
  /**
   * What the plugin may reach beyond its own folders (every key present); absent when the
   * manifest asks for nothing. Granted by the operator at install and upgrade (docs/lifecycle.md).
   */
  permissions?: PluginPermissions;
  /** `[]` when the manifest declares none. */
  agent_tools: AgentToolDeclaration[];
  /**
   * What the manifest had that is not refused but is probably a mistake (unknown fields, each
   * with its "did you mean"); absent when there was none. Kept with the record, shown in its `warnings`.
   */
  warnings?: Violation[];
}
