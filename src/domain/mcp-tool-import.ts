import { utf8ByteLength } from './byte-length';
import { escapeControlCharacters, hasControlCharacters } from './control-characters';
import type { Violation } from './errors';
import { isJsonObject, type JsonObject } from './json';
import { LIMITS } from './limits';
import type { AgentToolDeclaration } from './manifest';
import { resolveAnnotations, TOOL_NAME_PATTERN } from './agent-tool-validation';
import type { SchemaCompiler } from './schema-compiler';
import { schemaProblems } from './schema-rules';
import type { ToolSurface } from './surfaces';
import { ViolationList } from './violation-list';

/** An agent tool imported from an MCP server: a declaration plus the server's original name, used on calls. */
export type ImportedAgentTool = AgentToolDeclaration & { server_name: string };

/** The most tools one MCP server plugin imports (docs/plugin-protocol.md, MCP servers). */
export const MAX_IMPORTED_TOOLS = 64;

export interface McpToolImport {
  /** Sorted by local name (byte order), at most 64. */
  tools: ImportedAgentTool[];
  /** One entry per server tool left out, and per allow-listed name the server lacks. */
  warnings: Violation[];
}

export interface McpToolImportInput {
  /** The server's `tools/list` entries, every page, as sent. */
  serverTools: JsonObject[];
  /** The manifest's `runtime.tools` (original names); undefined imports every tool. */
  allowList?: string[];
  /** The manifest's `runtime.surfaces`, given to every imported tool. */
  surfaces: ToolSurface[];
}

const MCP_ANNOTATIONS = [
  ['readOnlyHint', 'read_only_hint'],
  ['destructiveHint', 'destructive_hint'],
  ['idempotentHint', 'idempotent_hint'],
  ['openWorldHint', 'open_world_hint'],
] as const;

/**
 * Turns an MCP server's tools into the plugin's agent tools (docs/plugin-protocol.md, MCP
 * servers, Import). A tool is left out, with a warning naming it, when its local name collides
 * with another's (the whole group goes), breaks the tool name rule, its description is absent
 * or blank, a schema breaks the agent-tool schema rules, its annotations do, or its description
 * or title holds a control character; of the rest the first 64 by local name are kept. Pure:
 * the same list gives the same answer, which is what lets a later start compare with the pinned set.
 */
export function importMcpTools(input: McpToolImportInput, schemas: SchemaCompiler): McpToolImport {
  const warnings = new ViolationList();
  const allowed = input.allowList === undefined ? undefined : new Set(input.allowList);
  const offered = new Set<string>();
  const candidates: { serverName: string; localName: string; tool: JsonObject }[] = [];
  input.serverTools.forEach((tool, index) => {
    const serverName = tool.name;
    if (typeof serverName !== 'string') {
      warnings.add(`server_tools[${index}]`, 'has no name; not imported');
      return;
    }
    offered.add(serverName);
    if (allowed !== undefined && !allowed.has(serverName)) return;
    candidates.push({ serverName, localName: localToolName(serverName), tool });
  });
  for (const name of input.allowList ?? []) {
    if (!offered.has(name)) warnings.add('runtime.tools', `the server has no tool ${quoteName(name)}`);
  }

  const groups = new Map<string, string[]>();
  for (const candidate of candidates) groups.set(candidate.localName, [...(groups.get(candidate.localName) ?? []), candidate.serverName]);

  const imported: ImportedAgentTool[] = [];
  for (const { serverName, localName, tool } of candidates) {
    const at = serverToolPath(serverName);
    const group = groups.get(localName) ?? [];
    if (group.length > 1) {
      warnings.add(
        at,
        `its local name "${localName}" collides with ${
          group
            .filter((other) => other !== serverName)
            .map(quoteName)
            .join(', ') || 'another tool of the same name'
        }; not imported`,
      );
      continue;
    }
    const problems = toolProblems(tool, localName, schemas);
    if (problems.length > 0) {
      warnings.add(at, `${problems.join('; ')}; not imported`);
      continue;
    }
    imported.push(declaration(tool, serverName, localName, input.surfaces));
  }

  imported.sort((a, b) => compareBytes(a.name, b.name));
  for (const dropped of imported.slice(MAX_IMPORTED_TOOLS)) {
    warnings.add(serverToolPath(dropped.server_name), `beyond the first ${MAX_IMPORTED_TOOLS} tools by local name; not imported`);
  }
  return { tools: imported.slice(0, MAX_IMPORTED_TOOLS), warnings: warnings.items };
}

/** An original MCP tool name as a plugin-local name: ASCII lower case, anything outside `[a-z0-9_]` as `_`, 32 characters at most. */
export function localToolName(serverName: string): string {
  let local = '';
  for (const char of serverName) {
    // Only ASCII letters are lowered: toLowerCase() on others can change how many characters there are.
    const lowered = /^[A-Z]$/.test(char) ? char.toLowerCase() : char;
    local += /^[a-z0-9_]$/.test(lowered) ? lowered : '_';
    if (local.length === 32) break;
  }
  return local;
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (utf8ByteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let cut = '';
  for (const char of text) {
    bytes += utf8ByteLength(char);
    if (bytes > maxBytes) break;
    cut += char;
  }
  return cut;
}

function toolProblems(tool: JsonObject, localName: string, schemas: SchemaCompiler): string[] {
  const problems: string[] = [];
  if (!TOOL_NAME_PATTERN.test(localName)) problems.push(`its local name "${localName}" must match ${TOOL_NAME_PATTERN.source}`);
  const description = tool.description;
  if (typeof description !== 'string' || description.trim() === '') problems.push('it has no description');
  else if (hasControlCharacters(description)) problems.push('its description holds a control character');
  const title = tool.title;
  if (title !== undefined && title !== null) {
    if (typeof title !== 'string') problems.push('its title is not text');
    else if (hasControlCharacters(title)) problems.push('its title holds a control character');
  }
  if (tool.inputSchema === undefined || tool.inputSchema === null) problems.push('it has no inputSchema');
  else for (const problem of schemaProblems(tool.inputSchema, schemas)) problems.push(`its inputSchema ${problem}`);
  if (tool.outputSchema !== undefined && tool.outputSchema !== null) {
    for (const problem of schemaProblems(tool.outputSchema, schemas)) problems.push(`its outputSchema ${problem}`);
  }
  const annotations = new ViolationList();
  resolveAnnotations(snakeAnnotations(tool.annotations), 'annotations', annotations);
  for (const { path, message } of annotations.items) problems.push(`its ${path} ${message}`);
  return problems;
}

function declaration(tool: JsonObject, serverName: string, localName: string, surfaces: ToolSurface[]): ImportedAgentTool {
  const imported: ImportedAgentTool = {
    name: localName,
    description: cutToBytes(tool.description as string, LIMITS.toolDescriptionBytes),
    surfaces: [...surfaces],
    input_schema: tool.inputSchema as JsonObject,
    // toolProblems() has checked them: resolving again cannot fail.
    annotations: resolveAnnotations(snakeAnnotations(tool.annotations), 'annotations', new ViolationList())!,
    server_name: serverName,
  };
  if (typeof tool.title === 'string') imported.title = cutToBytes(tool.title, LIMITS.toolTitleBytes);
  if (isJsonObject(tool.outputSchema)) imported.output_schema = tool.outputSchema;
  return imported;
}

/** MCP's camelCase hints under the manifest's names; anything else in `annotations` (its `title`, say) is not carried. */
function snakeAnnotations(value: unknown): unknown {
  if (!isJsonObject(value)) return value;
  const hints: JsonObject = {};
  for (const [mcp, manifest] of MCP_ANNOTATIONS) if (value[mcp] !== undefined) hints[manifest] = value[mcp];
  return hints;
}

function compareBytes(a: string, b: string): number {
  // Local names are ASCII, where UTF-16 order is byte order.
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where a warning about the server tool `serverName` points. */
export function serverToolPath(serverName: string): string {
  return `server_tools[${quoteName(serverName)}]`;
}

/** A server-chosen name in a message: JSON-quoted, C1 controls escaped, long ones cut. */
function quoteName(name: string): string {
  const short = [...name].length > 64 ? `${[...name].slice(0, 64).join('')}…` : name;
  return escapeControlCharacters(JSON.stringify(short));
}
