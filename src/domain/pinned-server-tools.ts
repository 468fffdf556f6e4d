import type { PluginManifest } from './manifest';
import { importMcpTools } from './mcp-tool-import';
import type { McpServerInfo } from './plugin-record';
import type { SchemaCompiler } from './schema-compiler';
import type { JsonObject } from './json';

/** What an MCP server's `initialize` and complete `tools/list` said. */
export interface ServerListing {
  server: McpServerInfo;
  tools: JsonObject[];
}

/**
 * `manifest` with an MCP server's list imported and pinned (docs/plugin-protocol.md, MCP
 * servers, Import): its `agent_tools` are the imported definitions (each with `server_name`),
 * its `warnings` the manifest's own followed by the import's. `manifest.warnings` must hold the
 * manifest's own only (as validated), so pinning again replaces the last import's warnings.
 * A manifest that is not an MCP server's comes back as it is.
 */
export function pinServerTools(manifest: PluginManifest, listing: ServerListing, schemas: SchemaCompiler): PluginManifest {
  if (manifest.runtime?.type !== 'mcp-stdio') return manifest;
  const imported = importMcpTools(
    { serverTools: listing.tools, surfaces: manifest.runtime.surfaces, ...(manifest.runtime.tools ? { allowList: manifest.runtime.tools } : {}) },
    schemas,
  );
  const warnings = [...(manifest.warnings ?? []), ...imported.warnings];
  const { warnings: _own, ...rest } = manifest;
  return { ...rest, agent_tools: imported.tools, ...(warnings.length > 0 ? { warnings } : {}) };
}
