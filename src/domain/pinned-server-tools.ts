import type { Violation } from './errors';
import type { PluginManifest } from './manifest';
import { importMcpTools, serverToolPath, type ImportedAgentTool, type McpToolImport } from './mcp-tool-import';
import { describeClash, findNameClashes, type NamedPlugin } from './naming';
import type { McpServerInfo } from './plugin-record';
import type { SchemaCompiler } from './schema-compiler';
import type { JsonObject } from './json';
import { autoAccept, toolDrift, type ToolDrift } from './tool-drift';

/** What an MCP server's `initialize` and complete `tools/list` said. */
export interface ServerListing {
  server: McpServerInfo;
  tools: JsonObject[];
}

/**
 * `manifest` with an MCP server's list imported and pinned (docs/plugin-protocol.md, MCP
 * servers, Import): its `agent_tools` are the imported definitions (each with `server_name`),
 * its `warnings` the manifest's own followed by the import's, and it is marked pinned. The
 * warnings of an earlier import are dropped first, so pinning again replaces them.
 * A manifest that is not an MCP server's comes back as it is.
 */
export function pinServerTools(manifest: PluginManifest, listing: ServerListing, schemas: SchemaCompiler): PluginManifest {
  if (manifest.runtime?.type !== 'mcp-stdio') return manifest;
  const imported = importServerTools(manifest, listing, schemas);
  return withImport(manifest, imported.tools, imported.warnings);
}

/** Whether `manifest` is an MCP server's whose tools were pinned (docs/lifecycle.md, Pinned tools and drift). */
export function hasPinnedTools(manifest: PluginManifest): boolean {
  return manifest.runtime?.type === 'mcp-stdio' && manifest.tools_pinned === true;
}

/** What `listing` would import for `manifest` now (its allow-list and surfaces). */
export function importServerTools(manifest: PluginManifest, listing: ServerListing, schemas: SchemaCompiler): McpToolImport {
  const runtime = manifest.runtime;
  if (runtime?.type !== 'mcp-stdio') return { tools: [], warnings: [] };
  return importMcpTools({ serverTools: listing.tools, surfaces: runtime.surfaces, ...(runtime.tools ? { allowList: runtime.tools } : {}) }, schemas);
}

/**
 * A warning an import gave rather than the manifest: each names a server tool, or a
 * `runtime.tools` name the server lacks (see importMcpTools()).
 */
export function isImportWarning(warning: Violation): boolean {
  return warning.path.startsWith('server_tools[') || (warning.path === 'runtime.tools' && warning.message.startsWith('the server has no tool'));
}

/** `manifest` pinned to `tools`, its warnings the manifest's own followed by `importWarnings`. */
export function withImport(manifest: PluginManifest, tools: ImportedAgentTool[], importWarnings: Violation[]): PluginManifest {
  const warnings = [...(manifest.warnings ?? []).filter((warning) => !isImportWarning(warning)), ...importWarnings];
  const { warnings: _old, ...rest } = manifest;
  return { ...rest, agent_tools: tools, ...(warnings.length > 0 ? { warnings } : {}), tools_pinned: true };
}

/** What one later list of a pinned MCP server leads to (docs/lifecycle.md, Pinned tools and drift). */
export interface RelistOutcome {
  /** The manifest to keep: the same tools unless auto-accepted, the warnings of this import. */
  manifest: PluginManifest;
  /** How this list still differs from the pinned tools; null when they match. */
  drift: ToolDrift | null;
}

/**
 * Compares a later list with the pinned tools of `pluginId`'s `manifest`. Without
 * `runtime.auto_accept_tools` the pinned tools stay and the difference is the drift. With it,
 * the list is pinned at once (autoAccept(): a tool turning non-destructive is held), except a
 * newly pinned tool whose exposed name `others` (or a built-in) already take: that one is
 * warned and not imported.
 */
export function relistPinned(
  pluginId: string,
  manifest: PluginManifest,
  listing: ServerListing,
  others: NamedPlugin[],
  prefix: string,
  schemas: SchemaCompiler,
): RelistOutcome {
  const imported = importServerTools(manifest, listing, schemas);
  const pinned = manifest.agent_tools as ImportedAgentTool[];
  if (manifest.runtime?.type !== 'mcp-stdio' || !manifest.runtime.auto_accept_tools) {
    return { manifest: withImport(manifest, pinned, imported.warnings), drift: toolDrift(pinned, imported.tools) };
  }
  const accepted = autoAccept(pinned, imported.tools).pinned;
  const before = new Set(pinned.map((tool) => tool.name));
  const warnings = [...imported.warnings];
  const refused = new Set<string>();
  for (const tool of accepted) {
    if (before.has(tool.name)) continue;
    const [clash] = findNameClashes({ id: pluginId, toolNames: [tool.name] }, others, prefix);
    if (clash === undefined) continue;
    refused.add(tool.name);
    warnings.push({ path: serverToolPath(tool.server_name), message: `${describeClash(clash)}; not imported` });
  }
  const kept = accepted.filter((tool) => !refused.has(tool.name));
  const offered = imported.tools.filter((tool) => !refused.has(tool.name));
  return { manifest: withImport(manifest, kept, warnings), drift: toolDrift(kept, offered) };
}
