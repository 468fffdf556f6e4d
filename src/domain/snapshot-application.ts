import type { CatalogSnapshot, CatalogTool } from './catalog';
import type { Violation } from './errors';
import type { JsonObject } from './json';
import type { SchemaCompiler } from './schema-compiler';
import type { Surface } from './surfaces';

export type SnapshotCheck = { ok: true; snapshot: CatalogSnapshot } | { ok: false; violations: Violation[] };

/**
 * Checks that an incoming value is a well-formed snapshot (CONTRACT §5 "malformed"): generation
 * form, positive integer revision, every exposed name the §2 derivation under `prefix`, no
 * duplicate or built-in name, known surfaces, schemas that compile with an object root.
 */
export function checkSnapshot(value: unknown, prefix: string, schemas: SchemaCompiler): SnapshotCheck {
  throw new Error(`not implemented yet: checkSnapshot(${typeof value}, ${prefix}, ${typeof schemas})`);
}

/** The tools a session on `surface` sees (configuration and external see none). */
export function toolsForSurface(snapshot: CatalogSnapshot, surface: Surface): CatalogTool[] {
  throw new Error(`not implemented yet: toolsForSurface(${snapshot.revision}, ${surface})`);
}

/** One string that changes exactly when the tools visible on `surface` change. */
export function surfaceFingerprint(snapshot: CatalogSnapshot, surface: Surface): string {
  throw new Error(`not implemented yet: surfaceFingerprint(${snapshot.revision}, ${surface})`);
}

/** What agentctl holds: the applied generation/revision and the visible-tools fingerprint. */
export interface AppliedState {
  generation: string;
  revision: number;
  fingerprint: string;
}

export type SnapshotDecision =
  | { outcome: 'stale' }
  | { outcome: 'unchanged' | 'applied'; state: AppliedState };

/**
 * CONTRACT §5 decision for a well-formed snapshot: `stale` for a lower generation or the
 * same generation with revision ≤ applied; else `applied` when the visible tools changed,
 * `unchanged` otherwise (both store the snapshot and advance the revision).
 */
export function decideSnapshot(current: AppliedState | null, incoming: CatalogSnapshot, surface: Surface): SnapshotDecision {
  throw new Error(`not implemented yet: decideSnapshot(${String(current)}, ${incoming.revision}, ${surface})`);
}

/** The MCP tool shape of §5. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  _meta: { 'toolport/plugin_id': string; 'toolport/plugin_version': string };
}

export function toMcpTool(tool: CatalogTool): McpTool {
  throw new Error(`not implemented yet: toMcpTool(${tool.exposed_name})`);
}
