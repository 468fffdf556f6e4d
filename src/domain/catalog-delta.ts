import type { CatalogSnapshot, CatalogTool } from './catalog';
import { compareGenerations, GENERATION_PATTERN } from './catalog-revisions';
import type { Violation } from './errors';
import { isJsonObject } from './json';
import { sha256Hex } from './tokens';

/**
 * What changed between two revisions of one generation's catalog: the tools to add or replace
 * and the names to drop. An agentctl holding exactly `baseRevision` gets the same snapshot from
 * it as from the full one (docs/agentctl.md §7 `catalog.push`).
 */
export interface CatalogDelta {
  generation: string;
  revision: number;
  baseRevision: number;
  upsert: CatalogTool[];
  remove: string[];
}

/** Content hash of a catalog tool in §4 form (field order is fixed, schemas are as stored). */
const hashes = new WeakMap<CatalogTool, string>();

export function toolContentHash(tool: CatalogTool): string {
  let hash = hashes.get(tool);
  if (hash === undefined) {
    hash = sha256Hex(JSON.stringify(tool));
    hashes.set(tool, hash);
  }
  return hash;
}

/**
 * The delta from `from` to `to`, tools keyed by content hash so an unchanged tool is never
 * sent; undefined when they are of different generations or `to` is not newer.
 */
export function catalogDelta(from: CatalogSnapshot, to: CatalogSnapshot): CatalogDelta | undefined {
  if (from.generation !== to.generation || to.revision <= from.revision) return undefined;
  const before = new Map(from.tools.map((tool) => [tool.exposed_name, toolContentHash(tool)]));
  const upsert = to.tools.filter((tool) => before.get(tool.exposed_name) !== toolContentHash(tool));
  const kept = new Set(to.tools.map((tool) => tool.exposed_name));
  const remove = from.tools.filter((tool) => !kept.has(tool.exposed_name)).map((tool) => tool.exposed_name);
  return { generation: to.generation, revision: to.revision, baseRevision: from.revision, upsert, remove };
}

export type DeltaExpansion =
  /** The whole snapshot the delta stands for, as a raw value for the usual snapshot check. */
  | { kind: 'snapshot'; value: { generation: string; revision: number; tools: unknown[] } }
  /** Not newer than what is held: nothing to do. */
  | { kind: 'stale' }
  /** Built on another revision than the one held: the full snapshot is needed. */
  | { kind: 'base_mismatch' }
  | { kind: 'malformed'; violations: Violation[] };

/**
 * Rebuilds the snapshot a delta stands for from the one held. Kept tools are the held objects
 * themselves, so the snapshot check that follows knows them unchanged at a glance; the
 * upserted entries are raw, and get every check a full snapshot gets.
 */
export function expandDelta(held: CatalogSnapshot | null, value: unknown): DeltaExpansion {
  const shape = deltaShape(value);
  if ('violations' in shape) return { kind: 'malformed', violations: shape.violations };
  if (held !== null) {
    const order = compareGenerations(shape.generation, held.generation);
    if (order < 0 || (order === 0 && shape.revision <= held.revision)) return { kind: 'stale' };
  }
  if (held === null || held.generation !== shape.generation || held.revision !== shape.baseRevision) return { kind: 'base_mismatch' };
  const heldNames = new Set(held.tools.map((tool) => tool.exposed_name));
  if (shape.remove.some((name) => !heldNames.has(name))) return { kind: 'base_mismatch' };
  const replaced = new Set<string>(shape.remove);
  for (const entry of shape.upsert) if (isJsonObject(entry) && typeof entry.exposed_name === 'string') replaced.add(entry.exposed_name);
  const tools: unknown[] = held.tools.filter((tool) => !replaced.has(tool.exposed_name));
  tools.push(...shape.upsert);
  return { kind: 'snapshot', value: { generation: shape.generation, revision: shape.revision, tools } };
}

/** Whether a `catalog.push` payload is a delta (it names the revision it builds on). */
export function isDeltaPayload(value: unknown): boolean {
  return isJsonObject(value) && 'base_revision' in value;
}

type DeltaShape = { generation: string; revision: number; baseRevision: number; upsert: unknown[]; remove: string[] } | { violations: Violation[] };

function deltaShape(value: unknown): DeltaShape {
  const violations: Violation[] = [];
  if (!isJsonObject(value)) return { violations: [{ path: '(root)', message: 'delta must be an object' }] };
  const { generation, revision, base_revision: baseRevision, upsert, remove } = value;
  if (typeof generation !== 'string' || !GENERATION_PATTERN.test(generation))
    violations.push({ path: 'generation', message: 'must be <12-digit boot counter>-<8 hex digits>' });
  if (!isPositiveInteger(revision)) violations.push({ path: 'revision', message: 'must be a positive integer' });
  if (!isPositiveInteger(baseRevision) || (isPositiveInteger(revision) && baseRevision >= revision)) {
    violations.push({ path: 'base_revision', message: 'must be a positive integer below revision' });
  }
  if (!Array.isArray(upsert)) violations.push({ path: 'upsert', message: 'must be a list of tools' });
  if (!Array.isArray(remove) || !remove.every((name) => typeof name === 'string'))
    violations.push({ path: 'remove', message: 'must be a list of exposed names' });
  if (violations.length > 0) return { violations };
  return {
    generation: generation as string,
    revision: revision as number,
    baseRevision: baseRevision as number,
    upsert: upsert as unknown[],
    remove: remove as string[],
  };
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}
