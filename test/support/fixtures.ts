import type { JsonObject } from '../../src/domain/json';
import type { AgentToolDeclaration, PluginManifest } from '../../src/domain/manifest';
import type { PluginRecord } from '../../src/domain/plugin-record';
import type { SessionRecord } from '../../src/domain/session';
import type { ToolSurface } from '../../src/domain/surfaces';

/** A declared agent tool with sensible defaults; override any field. */
export function toolFixture(name: string, overrides: Partial<AgentToolDeclaration> = {}): AgentToolDeclaration {
  const surfaces: ToolSurface[] = ['kanban-task', 'office-task'];
  return {
    name,
    description: `The ${name} tool`,
    surfaces,
    input_schema: { type: 'object', properties: { value: { type: 'string' } } } as JsonObject,
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
    ...overrides,
  };
}

/** A validated manifest for `id@version` declaring tools named `toolNames`. */
export function manifestFixture(id: string, version = '1.0.0', toolNames: string[] = ['run'], overrides: Partial<PluginManifest> = {}): PluginManifest {
  return {
    api_version: 1,
    id,
    version,
    runtime: { type: 'binary', executables: { any: 'bin/plugin' }, args: [] },
    agent_tools: toolNames.map((name) => toolFixture(name)),
    ...overrides,
  };
}

/** A stored plugin record; override any field. */
export function pluginRecordFixture(overrides: Partial<PluginRecord> & { id: string }): PluginRecord {
  const version = overrides.version ?? '1.0.0';
  return {
    version,
    status: 'active',
    enabled: true,
    manifest: manifestFixture(overrides.id, version),
    package_sha256: 'a'.repeat(64),
    last_error: null,
    last_error_at: null,
    restart_count: 0,
    install_seq: 1,
    installed_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A stored session record; override any field. */
export function sessionRecordFixture(overrides: Partial<SessionRecord> & { session_id: string }): SessionRecord {
  return {
    task_id: 'task-1',
    workspace_id: 'ws-1',
    surface: 'kanban-task',
    profile: 'default',
    status: 'live',
    session_token_hash: `hash-${overrides.session_id}`,
    session_verifier: '',
    mcp_url: null,
    launched: false,
    agentctl_pid: null,
    agentctl_start_time: null,
    agentctl_replica: null,
    last_linked_at: null,
    link_down_since: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}
