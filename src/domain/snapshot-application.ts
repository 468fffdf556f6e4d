import type { CatalogSnapshot, CatalogTool } from './catalog';
import { compareGenerations, GENERATION_PATTERN, sortTools } from './catalog-revisions';
import { checkCatalogTool } from './catalog-tool-check';
import type { Violation } from './errors';
import { isJsonObject } from './json';
import { jsonText } from './json-text';
import { sameJson } from './same-json';
import { entryText, keepEntryText } from './snapshot-text';
import type { SchemaCompiler } from './schema-compiler';
import { isToolSurface, type Surface } from './surfaces';
import { kindOf, ViolationList } from './violation-list';

export type SnapshotCheck = { ok: true; snapshot: CatalogSnapshot } | { ok: false; violations: Violation[] };

/**
 * Checks that an incoming value is a well-formed snapshot (docs/agentctl.md "malformed"): generation
 * form, positive integer revision, every exposed name the §2 derivation under `prefix`, no
 * duplicate or built-in name, known surfaces, schemas that compile with an object root.
 * `held`, the snapshot already held, spares re-checking schemas that did not change.
 */
export function checkSnapshot(value: unknown, prefix: string, schemas: SchemaCompiler, held: CatalogSnapshot | null = null): SnapshotCheck {
  try {
    return check(value, prefix, schemas, held);
  } catch (error) {
    // Never let an odd input escape as an exception: the caller answers 400 either way.
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, violations: [{ path: '(root)', message: `could not be checked: ${reason}` }] };
  }
}

function check(value: unknown, prefix: string, schemas: SchemaCompiler, held: CatalogSnapshot | null): SnapshotCheck {
  const violations = new ViolationList();
  if (!isJsonObject(value)) {
    violations.add('(root)', `snapshot must be an object, not ${kindOf(value)}`);
    return { ok: false, violations: violations.items };
  }
  const { generation, revision } = value;
  if (typeof generation !== 'string' || !GENERATION_PATTERN.test(generation)) {
    violations.add('generation', 'must be <12-digit boot counter>-<8 hex digits>');
  }
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 1) {
    violations.add('revision', 'must be a positive integer');
  }
  const tools: CatalogTool[] = [];
  if (!Array.isArray(value.tools)) violations.add('tools', `must be a list, not ${kindOf(value.tools)}`);
  else {
    const firstIndex = new Map<string, number>();
    const heldByName = new Map(held?.tools.map((tool) => [tool.exposed_name, tool]));
    Array.from(value.tools).forEach((entry: unknown, index) => {
      const path = `tools[${index}]`;
      const heldTool = isJsonObject(entry) && typeof entry.exposed_name === 'string' ? heldByName.get(entry.exposed_name) : undefined;
      const tool = unchangedTool(entry, prefix, heldTool) ?? checkCatalogTool(entry, path, prefix, violations, schemas, heldTool);
      if (tool !== undefined) {
        tools.push(tool);
        if (tool !== heldTool) {
          sources.set(tool, { entry, prefix });
          keepEntryText(entry);
        }
      }
      const name = isJsonObject(entry) ? entry.exposed_name : undefined;
      if (typeof name !== 'string') return;
      const first = firstIndex.get(name);
      if (first === undefined) firstIndex.set(name, index);
      else violations.add(`${path}.exposed_name`, `duplicate name "${name}" (also tools[${first}])`);
    });
  }
  if (!violations.empty) return { ok: false, violations: violations.items };
  return { ok: true, snapshot: { generation: generation as string, revision: revision as number, tools: sortTools(tools) } };
}

/**
 * The snapshot entry each checked tool was made from, under which prefix. An incoming entry
 * equal to the one behind the held tool of its name (key order counts) passed every rule
 * when that tool was stored, so the held tool is kept as it is: at 3,200 tools, re-checking
 * each field and building each tool again was most of a swap. Entries are parsed values
 * nobody mutates; held tools keep them alive, no longer than the snapshot they belong to.
 */
const sources = new WeakMap<CatalogTool, { entry: unknown; prefix: string }>();

function unchangedTool(entry: unknown, prefix: string, held: CatalogTool | undefined): CatalogTool | undefined {
  if (held === undefined) return undefined;
  // A delta rebuilt from the held snapshot hands its kept tools over as they are.
  if (entry === held && sources.get(held)?.prefix === prefix) return held;
  const source = sources.get(held);
  if (source === undefined || source.prefix !== prefix) return undefined;
  // Both parsed from text (parseSnapshotText): the same text is the same data, one string compare.
  const text = entryText(entry);
  if (text !== undefined && text === entryText(source.entry)) return held;
  if (!sameJson(entry, source.entry)) return undefined;
  // The held tool came from an entry without its text (a launch file, the link): from now on
  // it is compared by this entry's text, the same data.
  if (text !== undefined) {
    sources.set(held, { entry, prefix });
    keepEntryText(entry);
  }
  return held;
}

/** The tools a session on `surface` sees (configuration and external see none). */
export function toolsForSurface(snapshot: CatalogSnapshot, surface: Surface): CatalogTool[] {
  if (!isToolSurface(surface)) return [];
  return snapshot.tools.filter((tool) => tool.surfaces.includes(surface));
}

/**
 * Whether two lists of visible tools show the agent the same thing: the same tools in the
 * same order, each with what its listing shows and its schemas' text verbatim (compared as
 * sent; the backend sends the stored schemas, whose key order does not move). A tool kept
 * from the held snapshot is the same object, so a swap that changed one tool of 3,200
 * compares one text, not 2 MB of them.
 */
export function sameVisibleTools(a: readonly CatalogTool[], b: readonly CatalogTool[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && toolText(a[i]!) !== toolText(b[i]!)) return false;
  return true;
}

/** Per tool object: a held tool kept by the next check (see `sources`) keeps its text too. */
const toolTexts = new WeakMap<CatalogTool, string>();

/** What a listing shows of a tool (its surfaces and local name are not shown), schemas as sent. */
function toolText(tool: CatalogTool): string {
  let text = toolTexts.get(tool);
  if (text === undefined) {
    const { exposed_name, title, description, annotations, plugin_id, plugin_version } = tool;
    const shown = JSON.stringify({ exposed_name, title, description, annotations, plugin_id, plugin_version });
    text = [shown, jsonText(tool.input_schema), tool.output_schema === undefined ? '' : jsonText(tool.output_schema)].join('\u0000');
    toolTexts.set(tool, text);
  }
  return text;
}

/**
 * What agentctl holds: the applied generation/revision, the tools its session sees, and a
 * fingerprint that changes exactly when those tools change (the revision of the last change
 * that touched them; '' while none is visible yet).
 */
export interface AppliedState {
  generation: string;
  revision: number;
  visible: readonly CatalogTool[];
  fingerprint: string;
}

export type SnapshotDecision = { outcome: 'stale' } | { outcome: 'unchanged' | 'applied'; state: AppliedState };

/** The fingerprint of "no plugin tools visible", what a session shows before any snapshot. */
export const NOTHING_VISIBLE = '';

/**
 * docs/agentctl.md decision for a well-formed snapshot: `stale` for a lower generation or the
 * same generation with revision ≤ applied; else `applied` when the visible tools changed,
 * `unchanged` otherwise (both store the snapshot and advance the revision). With nothing
 * applied yet, the comparison is against no visible tools.
 */
export function decideSnapshot(current: AppliedState | null, incoming: CatalogSnapshot, surface: Surface): SnapshotDecision {
  if (current !== null) {
    const generationOrder = compareGenerations(incoming.generation, current.generation);
    if (generationOrder < 0 || (generationOrder === 0 && incoming.revision <= current.revision)) return { outcome: 'stale' };
  }
  const visible = sortTools(toolsForSurface(incoming, surface));
  const same = sameVisibleTools(current?.visible ?? [], visible);
  const fingerprint = same ? (current?.fingerprint ?? NOTHING_VISIBLE) : `${incoming.generation}/${incoming.revision}`;
  const state: AppliedState = { generation: incoming.generation, revision: incoming.revision, visible, fingerprint };
  return { outcome: same ? 'unchanged' : 'applied', state };
}
