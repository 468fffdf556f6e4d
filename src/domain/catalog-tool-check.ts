import { resolveAnnotations, TOOL_NAME_PATTERN } from './agent-tool-validation';
import type { CatalogTool } from './catalog';
import { isJsonObject, type JsonObject } from './json';
import { isPluginId } from './manifest-validation';
import { BUILT_IN_TOOL_NAMES, exposedToolName } from './naming';
import type { SchemaCompiler } from './schema-compiler';
import { sameJson } from './same-json';
import { schemaProblems } from './schema-rules';
import { isToolSurface, type ToolSurface } from './surfaces';
import { fieldPath, kindOf, type ViolationList } from './violation-list';

/**
 * Checks one snapshot tool at `path` (docs/agentctl.md "malformed"), adding violations; returns
 * the tool in §4 form (unknown fields dropped, surfaces sorted) when it has none. Duplicate
 * names across tools are the caller's rule. `held`, the tool of that name in the snapshot
 * already held, lets an unchanged schema skip its rules (it keeps the held schema object).
 */
export function checkCatalogTool(
  value: unknown,
  path: string,
  prefix: string,
  violations: ViolationList,
  schemas: SchemaCompiler,
  held?: CatalogTool,
): CatalogTool | undefined {
  if (!isJsonObject(value)) {
    violations.add(path, `must be an object, not ${kindOf(value)}`);
    return undefined;
  }
  const before = violations.items.length;
  const at = (key: string) => fieldPath(path, key);
  const { plugin_id: pluginId, local_name: localName, exposed_name: exposedName } = value;
  if (!isPluginId(pluginId)) violations.add(at('plugin_id'), 'must be a plugin id');
  if (typeof value.plugin_version !== 'string' || value.plugin_version === '') violations.add(at('plugin_version'), 'must be non-empty text');
  if (typeof localName !== 'string' || !TOOL_NAME_PATTERN.test(localName)) {
    violations.add(at('local_name'), `must match ${TOOL_NAME_PATTERN.source}`);
  }
  checkExposedName(exposedName, pluginId, localName, prefix, at('exposed_name'), violations);
  if (value.title !== undefined && value.title !== null && typeof value.title !== 'string') violations.add(at('title'), 'must be text');
  if (typeof value.description !== 'string') violations.add(at('description'), 'must be text');
  const surfaces = checkSurfaces(value.surfaces, at('surfaces'), violations);
  // A schema the same as the held tool's passed these rules when it was stored: keep that one.
  const heldInput = held !== undefined && sameJson(value.input_schema, held.input_schema) ? held.input_schema : undefined;
  const heldOutput = held?.output_schema !== undefined && sameJson(value.output_schema, held.output_schema) ? held.output_schema : undefined;
  if (heldInput === undefined) {
    for (const problem of schemaProblems(value.input_schema, schemas)) violations.add(at('input_schema'), problem);
  }
  if (heldOutput === undefined && value.output_schema !== undefined && value.output_schema !== null) {
    for (const problem of schemaProblems(value.output_schema, schemas)) violations.add(at('output_schema'), problem);
  }
  const annotations = resolveAnnotations(value.annotations, at('annotations'), violations);
  if (violations.items.length > before || annotations === undefined) return undefined;

  const tool: CatalogTool = {
    plugin_id: pluginId as string,
    plugin_version: value.plugin_version as string,
    local_name: localName as string,
    exposed_name: exposedName as string,
    description: value.description as string,
    surfaces,
    input_schema: heldInput ?? (value.input_schema as JsonObject),
    annotations,
  };
  if (typeof value.title === 'string') tool.title = value.title;
  if (heldOutput !== undefined) tool.output_schema = heldOutput;
  else if (isJsonObject(value.output_schema)) tool.output_schema = value.output_schema;
  return tool;
}

function checkExposedName(exposedName: unknown, pluginId: unknown, localName: unknown, prefix: string, path: string, violations: ViolationList): void {
  if (typeof exposedName !== 'string') {
    violations.add(path, 'must be text');
    return;
  }
  if (BUILT_IN_TOOL_NAMES.includes(exposedName)) {
    violations.add(path, `"${exposedName}" is a built-in tool name`);
    return;
  }
  if (typeof pluginId !== 'string' || typeof localName !== 'string') return;
  const expected = exposedToolName(prefix, pluginId, localName);
  if (exposedName !== expected) violations.add(path, `must be "${expected}" under prefix "${prefix}"`);
}

function checkSurfaces(value: unknown, path: string, violations: ViolationList): ToolSurface[] {
  if (!Array.isArray(value) || value.length === 0) {
    violations.add(path, 'must be a non-empty list');
    return [];
  }
  const seen = new Set<ToolSurface>();
  Array.from(value).forEach((surface: unknown, index) => {
    if (!isToolSurface(surface) || seen.has(surface)) violations.add(`${path}[${index}]`, 'must be a distinct tool surface');
    else seen.add(surface);
  });
  return [...seen].sort();
}
