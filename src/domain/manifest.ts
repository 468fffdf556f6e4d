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

/** A go-plugin process (`runtime.type: binary`). */
export interface BinaryRuntimeSpec {
  type: 'binary';
  /** `<platform>-<arch>` (Node's names) or `any` → path relative to the package root. */
  executables: Record<string, string>;
  args: string[];
}

/**
 * An existing MCP server speaking stdio (`runtime.type: mcp-stdio`, docs/plugin-protocol.md,
 * MCP servers). `args` and `env` values may hold `${package}`, `${data_dir}` and
 * `${config.KEY}`, replaced at each start (mcp-runtime-substitution.ts).
 */
export interface McpStdioRuntimeSpec {
  type: 'mcp-stdio';
  /** A relative path inside the package, or the bare name `node` or `python3` (looked up on PATH). */
  command: string;
  args: string[];
  /** NAME → value, set after the allow-list and TOOLPORT_PLUGIN_DATA_DIR; never a `TOOLPORT_*` name. */
  env: Record<string, string>;
  /** Given to every imported tool; default both surfaces. */
  surfaces: ToolSurface[];
  /** Original server tool names to import; absent imports every tool. */
  tools?: string[];
  auto_accept_tools: boolean;
}

export type PluginRuntimeSpec = BinaryRuntimeSpec | McpStdioRuntimeSpec;

/** True for a manifest whose plugin is an MCP server. */
export function isMcpServerManifest(manifest: Pick<PluginManifest, 'runtime'>): manifest is PluginManifest & { runtime: McpStdioRuntimeSpec } {
  return manifest.runtime?.type === 'mcp-stdio';
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
  /**
   * MCP server plugins: true once a server's list was imported and pinned as `agent_tools`
   * (docs/lifecycle.md, Pinned tools and drift). Absent on a version installed or upgraded while
   * waiting for its configuration, which pins at its first successful start.
   */
  tools_pinned?: true;
}
