import type { Tool } from '@modelcontextprotocol/server';
import type { ListedTool } from '../../application/agentctl/built-in-tools';
import type { JsonObject } from '../../domain/json';

/** A tool in a `tools/list` answer (docs/http-api.md §9): schemas verbatim, all four hints. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** Plugin tools only: which plugin and version serve it. */
  _meta?: { 'toolport/plugin_id': string; 'toolport/plugin_version': string };
}

/** Per listed tool object: a tool kept across snapshots is rendered once. */
const rendered = new WeakMap<ListedTool, McpTool>();
/** Per listing: each swap of the registry makes a new one, and every `tools/list` until the next reads it. */
const lists = new WeakMap<readonly ListedTool[], Tool[]>();

/** The `tools` of a `tools/list` answer for one listing, built once per listing. */
export function mcpToolList(listing: readonly ListedTool[]): Tool[] {
  let tools = lists.get(listing);
  if (tools === undefined) {
    tools = listing.map(toMcpTool) as Tool[];
    lists.set(listing, tools);
  }
  return tools;
}

/** One tool's listing: a plugin tool says which plugin and version serve it in `_meta`. */
export function toMcpTool(tool: ListedTool): McpTool {
  let mcp = rendered.get(tool);
  if (mcp !== undefined) return mcp;
  mcp = {
    name: tool.exposed_name,
    description: tool.description,
    inputSchema: tool.input_schema,
    annotations: {
      readOnlyHint: tool.annotations.read_only_hint,
      destructiveHint: tool.annotations.destructive_hint,
      idempotentHint: tool.annotations.idempotent_hint,
      openWorldHint: tool.annotations.open_world_hint,
    },
  };
  if ('plugin_id' in tool) mcp._meta = { 'toolport/plugin_id': tool.plugin_id, 'toolport/plugin_version': tool.plugin_version };
  if (tool.title !== undefined) mcp.title = tool.title;
  if (tool.output_schema !== undefined) mcp.outputSchema = tool.output_schema;
  rendered.set(tool, mcp);
  return mcp;
}
