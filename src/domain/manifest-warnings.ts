import type { Violation } from './errors';
import { closestName } from './edit-distance';
import { isJsonObject } from './json';
import { fieldPath } from './violation-list';

const ROOT_FIELDS = [
  'api_version',
  'id',
  'version',
  'display_name',
  'description',
  'min_toolport_version',
  'runtime',
  'capabilities',
  'config_schema',
  'permissions',
  'agent_tools',
] as const;
const PERMISSION_FIELDS = ['network', 'read_paths', 'write_paths', 'env'] as const;
const RUNTIME_FIELDS = ['type', 'executables', 'args'] as const;
const MCP_RUNTIME_FIELDS = ['type', 'command', 'args', 'env', 'surfaces', 'tools', 'auto_accept_tools'] as const;
const TOOL_FIELDS = ['name', 'title', 'description', 'surfaces', 'input_schema', 'output_schema', 'annotations'] as const;
const ANNOTATION_FIELDS = ['read_only_hint', 'destructive_hint', 'idempotent_hint', 'open_world_hint'] as const;

/**
 * The fields of a parsed manifest that docs/plugin-protocol.md §2 does not define, as warnings
 * (`{path, message}` like violations): they are not refused, but a misspelt one such as
 * `agent_tool` silently declares nothing, so each says which field it probably meant.
 * Schemas and `capabilities` are free-form and never looked into. Never throws.
 */
export function manifestWarnings(value: unknown): Violation[] {
  const warnings: Violation[] = [];
  if (!isJsonObject(value)) return warnings;
  unknownFields(value, '', ROOT_FIELDS, warnings);
  if (isJsonObject(value.runtime)) {
    // `executables` on an MCP server is a violation, not an unknown field.
    const known = value.runtime.type === 'mcp-stdio' ? [...MCP_RUNTIME_FIELDS, 'executables'] : RUNTIME_FIELDS;
    unknownFields(value.runtime, 'runtime', known, warnings);
  }
  if (isJsonObject(value.permissions)) unknownFields(value.permissions, 'permissions', PERMISSION_FIELDS, warnings);
  if (Array.isArray(value.agent_tools)) {
    Array.from(value.agent_tools as unknown[]).forEach((tool, index) => {
      if (!isJsonObject(tool)) return;
      const path = `agent_tools[${index}]`;
      unknownFields(tool, path, TOOL_FIELDS, warnings);
      if (isJsonObject(tool.annotations)) unknownFields(tool.annotations, fieldPath(path, 'annotations'), ANNOTATION_FIELDS, warnings);
    });
  }
  return warnings;
}

function unknownFields(value: Record<string, unknown>, base: string, known: readonly string[], warnings: Violation[]): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const guess = closestName(key, known);
    warnings.push({ path: fieldPath(base, key), message: guess ? `unknown field (did you mean ${guess}?)` : 'unknown field' });
  }
}
