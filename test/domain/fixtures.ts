import type { AgentToolDeclaration, PluginManifest } from '../../src/domain/manifest';
import type { PluginRecord, PluginStatus } from '../../src/domain/plugin-record';
import type { CompiledSchema, SchemaIssue } from '../../src/domain/schema-compiler';
import { SchemaCompiler } from '../../src/domain/schema-compiler';
import type { JsonObject } from '../../src/domain/json';

/** A declared tool with the given overrides. */
export function tool(overrides: Partial<AgentToolDeclaration> = {}): AgentToolDeclaration {
  return {
    name: 'run',
    description: 'Runs it',
    surfaces: ['kanban-task'],
    input_schema: { type: 'object' },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
    ...overrides,
  };
}

/** A stored plugin record with the given id, tools and status. */
export function record(
  id: string,
  tools: AgentToolDeclaration[],
  options: { status?: PluginStatus; installSeq?: number; version?: string } = {},
): PluginRecord {
  const version = options.version ?? '1.0.0';
  const manifest: PluginManifest = {
    api_version: 1,
    id,
    version,
    runtime: { type: 'binary', executables: { any: 'bin/plugin' }, args: [] },
    agent_tools: tools,
  };
  return {
    id,
    version,
    status: options.status ?? 'active',
    enabled: true,
    manifest,
    package_sha256: '0'.repeat(64),
    last_error: null,
    last_error_at: null,
    restart_count: 0,
    install_seq: options.installSeq ?? 1,
    installed_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

/**
 * A tiny stand-in compiler for domain tests: understands root `type`, `required` and
 * `properties.*.type` (string/number/object), and refuses schemas carrying `"x-broken"`.
 * The real ajv adapter has its own tests.
 */
export class FakeSchemaCompiler extends SchemaCompiler {
  compiled = 0;

  compile(schema: JsonObject): { ok: true; schema: CompiledSchema } | { ok: false; message: string } {
    this.compiled++;
    if ('x-broken' in schema) return { ok: false, message: 'schema is broken' };
    return { ok: true, schema: { validate: (value) => fakeValidate(schema, value) } };
  }
}

function fakeValidate(schema: JsonObject, value: unknown): SchemaIssue[] {
  if (schema.type === 'object' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    return [{ instancePath: '', message: 'must be object' }];
  }
  const issues: SchemaIssue[] = [];
  const object = value as Record<string, unknown>;
  for (const key of (schema.required as string[] | undefined) ?? []) {
    if (!(key in object)) issues.push({ instancePath: '', message: `must have required property '${key}'` });
  }
  const properties = (schema.properties ?? {}) as Record<string, { type?: string }>;
  for (const [key, spec] of Object.entries(properties)) {
    if (key in object && spec.type !== undefined && typeof object[key] !== spec.type) {
      issues.push({ instancePath: `/${key}`, message: `must be ${spec.type}` });
    }
  }
  return issues;
}
