import { CONTROL_CHARACTER_PROBLEM, hasControlCharacters } from './control-characters';
import { utf8ByteLength } from './byte-length';
import { isJsonObject, type JsonObject } from './json';
import { LIMITS } from './limits';
import type { AgentToolDeclaration, ToolAnnotations } from './manifest';
import type { SchemaCompiler } from './schema-compiler';
import { schemaProblems } from './schema-rules';
import { isToolSurface, type ToolSurface } from './surfaces';
import { fieldPath, kindOf, type ViolationList } from './violation-list';

export const TOOL_NAME_PATTERN = /^[a-z0-9][a-z0-9_]{0,31}$/;
const ANNOTATION_KEYS = ['read_only_hint', 'destructive_hint', 'idempotent_hint', 'open_world_hint'] as const;

/**
 * Validates one `agent_tools[]` entry at `path`, adding every violation to `violations`;
 * returns the declaration (defaults applied, unknown fields dropped) when it has none.
 */
export function validateAgentTool(value: unknown, path: string, violations: ViolationList, schemas: SchemaCompiler): AgentToolDeclaration | undefined {
  if (!isJsonObject(value)) {
    violations.add(path, `must be a mapping, not ${kindOf(value)}`);
    return undefined;
  }
  const before = violations.items.length;
  const name = value.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    violations.add(fieldPath(path, 'name'), `must match ${TOOL_NAME_PATTERN.source}`);
  }
  const title = value.title;
  if (title !== undefined && title !== null) checkText(title, fieldPath(path, 'title'), LIMITS.toolTitleBytes, violations);
  checkDescription(value.description, fieldPath(path, 'description'), violations);
  const surfaces = checkSurfaces(value.surfaces, fieldPath(path, 'surfaces'), violations);
  checkSchema(value.input_schema, fieldPath(path, 'input_schema'), true, violations, schemas);
  checkSchema(value.output_schema, fieldPath(path, 'output_schema'), false, violations, schemas);
  const annotations = resolveAnnotations(value.annotations, fieldPath(path, 'annotations'), violations);
  if (violations.items.length > before || annotations === undefined) return undefined;

  const declaration: AgentToolDeclaration = {
    name: name as string,
    description: value.description as string,
    surfaces,
    input_schema: value.input_schema as JsonObject,
    annotations,
  };
  if (typeof title === 'string') declaration.title = title;
  if (isJsonObject(value.output_schema)) declaration.output_schema = value.output_schema;
  return declaration;
}

function checkText(value: unknown, path: string, maxBytes: number, violations: ViolationList): void {
  if (typeof value !== 'string') {
    violations.add(path, `must be text, not ${kindOf(value)}`);
    return;
  }
  const bytes = utf8ByteLength(value);
  if (bytes > maxBytes) violations.add(path, `must be at most ${maxBytes} bytes (is ${bytes})`);
  if (hasControlCharacters(value)) violations.add(path, CONTROL_CHARACTER_PROBLEM);
}

function checkDescription(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) {
    violations.add(path, 'is required');
    return;
  }
  if (typeof value === 'string' && value.trim() === '') {
    violations.add(path, 'must not be blank');
    return;
  }
  checkText(value, path, LIMITS.toolDescriptionBytes, violations);
}

function checkSurfaces(value: unknown, path: string, violations: ViolationList): ToolSurface[] {
  if (value === undefined || value === null) {
    violations.add(path, 'is required');
    return [];
  }
  if (!Array.isArray(value)) {
    violations.add(path, `must be a list, not ${kindOf(value)}`);
    return [];
  }
  if (value.length === 0) violations.add(path, 'must not be empty');
  const seen = new Set<ToolSurface>();
  value.forEach((surface: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isToolSurface(surface)) violations.add(at, `unsupported surface ${describeValue(surface)}`);
    else if (seen.has(surface)) violations.add(at, `duplicate surface "${surface}"`);
    else seen.add(surface);
  });
  return [...seen].sort();
}

function checkSchema(value: unknown, path: string, required: boolean, violations: ViolationList, schemas: SchemaCompiler): void {
  if (value === undefined || value === null) {
    if (required) violations.add(path, 'is required');
    return;
  }
  for (const problem of schemaProblems(value, schemas)) violations.add(path, problem);
}

/** §1 defaults: read-only false, destructive true unless read-only, idempotent false, open-world true. */
export function resolveAnnotations(value: unknown, path: string, violations: ViolationList): ToolAnnotations | undefined {
  if (value !== undefined && value !== null && !isJsonObject(value)) {
    violations.add(path, `must be a mapping, not ${kindOf(value)}`);
    return undefined;
  }
  const given: Partial<Record<(typeof ANNOTATION_KEYS)[number], boolean>> = {};
  let ok = true;
  for (const key of ANNOTATION_KEYS) {
    const hint = value?.[key];
    if (hint === undefined || hint === null) continue;
    if (typeof hint === 'boolean') given[key] = hint;
    else {
      violations.add(fieldPath(path, key), `must be a boolean, not ${kindOf(hint)}`);
      ok = false;
    }
  }
  if (given.read_only_hint === true && given.destructive_hint === true) {
    violations.add(path, 'read_only_hint and destructive_hint cannot both be true');
    ok = false;
  }
  if (!ok) return undefined;
  const readOnly = given.read_only_hint ?? false;
  return {
    read_only_hint: readOnly,
    destructive_hint: given.destructive_hint ?? !readOnly,
    idempotent_hint: given.idempotent_hint ?? false,
    open_world_hint: given.open_world_hint ?? true,
  };
}

/** A short, quoted form of a scalar for a message (manifests are not secret). */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `(${kindOf(value)})`;
}
