import type { CatalogSnapshot, CatalogTool } from './catalog';
import { canonicalJson } from './canonical-json';
import type { JsonValue } from './json';
import type { AgentToolDeclaration } from './manifest';
import { exposedToolName } from './naming';
import { sha256Hex } from './tokens';
import type { PluginRecord } from './plugin-record';
import { DEFAULT_POLICY, policyContentKey, type CatalogPolicy } from './scopes';

export const GENERATION_PATTERN = /^(\d{12})-([0-9a-f]{8})$/;

/** `<12-digit boot counter>-<8 hex>` (docs/catalog-and-sessions.md §1). */
export function formatGeneration(bootCounter: number, hex8: string): string {
  if (!Number.isSafeInteger(bootCounter) || bootCounter < 0 || bootCounter >= 1e12) {
    throw new RangeError(`boot counter ${bootCounter} does not fit 12 digits`);
  }
  if (!/^[0-9a-f]{8}$/.test(hex8)) throw new RangeError('generation suffix must be 8 lowercase hex digits');
  return `${String(bootCounter).padStart(12, '0')}-${hex8}`;
}

/** Orders generations: negative when a is older than b, 0 when equal. */
export function compareGenerations(a: string, b: string): number {
  const counterOrder = counterOf(a) - counterOf(b);
  if (counterOrder !== 0) return Math.sign(counterOrder);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The boot counter of a generation; -1 for an ill-formed one, so it orders first. */
function counterOf(generation: string): number {
  const match = /^(\d+)-/.exec(generation);
  return match ? Number(match[1]) : -1;
}

/** The catalog tools of the active plugins among `records`, sorted by exposed name (§4). */
export function catalogTools(records: PluginRecord[], prefix: string): CatalogTool[] {
  const tools = records
    .filter((record) => record.status === 'active')
    .flatMap((record) => record.manifest.agent_tools.map((declaration) => catalogTool(record, declaration, prefix)));
  return sortTools(tools);
}

function catalogTool(record: PluginRecord, declaration: AgentToolDeclaration, prefix: string): CatalogTool {
  return normaliseTool({
    plugin_id: record.id,
    plugin_version: record.version,
    local_name: declaration.name,
    exposed_name: exposedToolName(prefix, record.id, declaration.name),
    title: declaration.title,
    description: declaration.description,
    surfaces: declaration.surfaces,
    input_schema: declaration.input_schema,
    output_schema: declaration.output_schema,
    annotations: declaration.annotations,
  });
}

/** A copy in the §4 form: fixed field order, surfaces sorted, absent optional fields omitted. */
function normaliseTool(tool: CatalogTool): CatalogTool {
  const normal: CatalogTool = {
    plugin_id: tool.plugin_id,
    plugin_version: tool.plugin_version,
    local_name: tool.local_name,
    exposed_name: tool.exposed_name,
    description: tool.description,
    surfaces: [...tool.surfaces].sort(),
    input_schema: tool.input_schema,
    annotations: {
      read_only_hint: tool.annotations.read_only_hint,
      destructive_hint: tool.annotations.destructive_hint,
      idempotent_hint: tool.annotations.idempotent_hint,
      open_world_hint: tool.annotations.open_world_hint,
    },
  };
  if (tool.title !== undefined && tool.title !== null) normal.title = tool.title;
  if (tool.output_schema !== undefined && tool.output_schema !== null) normal.output_schema = tool.output_schema;
  return normal;
}

/** Sorted by exposed name, by code unit (not locale), so every process agrees. */
export function sortTools(tools: CatalogTool[]): CatalogTool[] {
  return [...tools].sort((a, b) => (a.exposed_name < b.exposed_name ? -1 : a.exposed_name > b.exposed_name ? 1 : 0));
}

/** Text equal for equivalent tool lists: same tools in any order, same keys in any order. */
function toolsContentKey(tools: CatalogTool[]): string {
  return canonicalJson(sortTools(tools.map(normaliseTool)) as unknown as JsonValue);
}

/**
 * Where the catalog stands, as the store keeps it: the generation, its revision, and a hash of
 * the content that revision names. It is all the next change needs to know.
 */
export interface CatalogState {
  generation: string;
  revision: number;
  /** SHA-256 hex of the canonical JSON of the normalised, sorted tools (and of the policy, once one is set). */
  contentHash: string;
}

/** A new generation: revision 1, no tools. */
export function initialCatalogState(generation: string): CatalogState {
  return { generation, revision: 1, contentHash: sha256Hex(toolsContentKey([])) };
}

/**
 * Offers a freshly computed tool list, and the stored scopes and profiles, to the catalog at
 * `state`: the revision rises by exactly one when either differs from what `state` names, and
 * stays for an equivalent list under the same policy (docs/catalog-and-sessions.md, "Scopes":
 * the revision orders policy as well as content). An installation that never set a scope or a
 * profile hashes the tools alone, as before scopes existed.
 */
export function offerCatalog(
  state: CatalogState,
  tools: CatalogTool[],
  policy: CatalogPolicy = DEFAULT_POLICY,
): { changed: boolean; state: CatalogState; snapshot: CatalogSnapshot } {
  const normal = sortTools(tools.map(normaliseTool));
  const toolsKey = canonicalJson(normal as unknown as JsonValue);
  const policyKey = policyContentKey(policy);
  const contentHash = sha256Hex(policyKey === null ? toolsKey : `${toolsKey}\n${policyKey}`);
  const next = contentHash === state.contentHash ? state : { generation: state.generation, revision: state.revision + 1, contentHash };
  return { changed: next !== state, state: next, snapshot: { generation: next.generation, revision: next.revision, tools: normal } };
}
