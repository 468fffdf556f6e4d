import { canonicalJson } from './canonical-json';
import type { JsonValue } from './json';
import type { ImportedAgentTool } from './mcp-tool-import';

/**
 * How an MCP server's would-be import differs from the tools pinned for it (docs/plugin-protocol.md,
 * MCP servers, Pinned tools): local names, each list sorted (byte order), all three always present.
 */
export interface ToolDrift {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * The drift of `imported` (what the server's list would import now; tools that would not
 * import are warnings there, never here) from `pinned`; null when they are the same. A tool
 * is changed when its title, description, schemas, annotations or original server name differ
 * as JSON values, key order ignored (the server's name counts because calls go by it).
 */
export function toolDrift(pinned: readonly ImportedAgentTool[], imported: readonly ImportedAgentTool[]): ToolDrift | null {
  const before = new Map(pinned.map((tool) => [tool.name, tool]));
  const after = new Map(imported.map((tool) => [tool.name, tool]));
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const changed = [...after.values()].filter((tool) => before.has(tool.name) && !sameTool(before.get(tool.name)!, tool)).map((tool) => tool.name);
  if (added.length + removed.length + changed.length === 0) return null;
  return { added: added.sort(compareBytes), removed: removed.sort(compareBytes), changed: changed.sort(compareBytes) };
}

/** What `runtime.auto_accept_tools: true` does with a new import: the set to pin now, and the drift left for the operator. */
export interface AutoAcceptance {
  pinned: ImportedAgentTool[];
  drift: ToolDrift | null;
}

/**
 * Accepts `imported` at once, except each changed tool whose `destructive_hint` it turns from
 * true to false: that one keeps its pinned definition and stays in the drift, for an operator
 * to accept (a tool that would newly claim to be harmless is the change policy cannot take on
 * the server's word). Sorted by local name, like an import.
 */
export function autoAccept(pinned: readonly ImportedAgentTool[], imported: readonly ImportedAgentTool[]): AutoAcceptance {
  const before = new Map(pinned.map((tool) => [tool.name, tool]));
  const next = imported.map((tool) => {
    const old = before.get(tool.name);
    return old !== undefined && old.annotations.destructive_hint && !tool.annotations.destructive_hint ? old : tool;
  });
  next.sort((a, b) => compareBytes(a.name, b.name));
  return { pinned: next, drift: toolDrift(next, imported) };
}

function sameTool(a: ImportedAgentTool, b: ImportedAgentTool): boolean {
  return canonicalJson(comparedFields(a)) === canonicalJson(comparedFields(b));
}

function comparedFields(tool: ImportedAgentTool): JsonValue {
  return {
    server_name: tool.server_name,
    title: tool.title ?? null,
    description: tool.description,
    input_schema: tool.input_schema,
    output_schema: tool.output_schema ?? null,
    annotations: { ...tool.annotations },
  };
}

function compareBytes(a: string, b: string): number {
  // Local names are ASCII, where UTF-16 order is byte order.
  return a < b ? -1 : a > b ? 1 : 0;
}
