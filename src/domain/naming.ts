import { ToolportError } from './errors';
import { LIMITS } from './limits';
import type { PluginRecord } from './plugin-record';
import { sha256Hex } from './tokens';

export const DEFAULT_TOOL_PREFIX = 'kandev';
export const TOOL_PREFIX_PATTERN = /^[a-z][a-z0-9_]{0,15}$/;
/** Built-in tool names of agentctl; reserved, no plugin tool may take them. */
export const BUILT_IN_TOOL_NAMES: readonly string[] = ['get_task_context'];
/** What `takenBy` says when a name clashes with a built-in tool. */
const BUILT_IN = 'built-in';

const HASH_SUFFIX_LENGTH = 9; // `_` + 8 hex digits

/** docs/plugin-protocol.md §3 slug: lower-cased id, chars outside [a-z0-9_] → `_`, `_` trimmed at both ends. */
export function pluginSlug(pluginId: string): string {
  return pluginId
    .toLowerCase()
    .replace(/[^a-z0-9_]/gu, '_')
    .replace(/^_+|_+$/g, '');
}

/** docs/plugin-protocol.md §3 exposed name `<prefix>_<slug>_<name>`, hashed and cut to 64 when longer. */
export function exposedToolName(prefix: string, pluginId: string, localName: string): string {
  const slug = pluginSlug(pluginId);
  const readable = `${prefix}_${slug}_${localName}`;
  if (readable.length <= LIMITS.exposedNameLength) return readable;
  const hash = sha256Hex(pluginId).slice(0, 8);
  const slugBudget = LIMITS.exposedNameLength - prefix.length - localName.length - 2 - HASH_SUFFIX_LENGTH;
  return `${prefix}_${slug.slice(0, Math.max(0, slugBudget))}_${localName}_${hash}`;
}

/** A plugin as the collision rule sees it: its id and its local tool names. */
export interface NamedPlugin {
  id: string;
  toolNames: string[];
}

/** One clash: `name` is wanted by `pluginId` and already taken by `takenBy` (a plugin id, or `built-in`). */
export interface NameClash {
  name: string;
  pluginId: string;
  takenBy: string;
}

/**
 * The clashes `candidate` would make with `others` (any status) and the built-in names.
 * Plugins in `others` with the candidate's own id are ignored (an upgrade replaces itself).
 */
export function findNameClashes(candidate: NamedPlugin, others: NamedPlugin[], prefix: string): NameClash[] {
  const taken = new Map<string, string>();
  for (const name of BUILT_IN_TOOL_NAMES) taken.set(name, BUILT_IN);
  for (const other of others) {
    if (other.id === candidate.id) continue;
    for (const local of other.toolNames) {
      const name = exposedToolName(prefix, other.id, local);
      if (!taken.has(name)) taken.set(name, other.id);
    }
  }
  const clashes: NameClash[] = [];
  for (const local of candidate.toolNames) {
    const name = exposedToolName(prefix, candidate.id, local);
    const takenBy = taken.get(name);
    if (takenBy !== undefined) clashes.push({ name, pluginId: candidate.id, takenBy });
  }
  return clashes;
}

/** Throws ToolportError NAME_COLLISION naming both plugins and the name when there is a clash. */
export function assertNoNameClash(candidate: NamedPlugin, others: NamedPlugin[], prefix: string): void {
  const [clash] = findNameClashes(candidate, others, prefix);
  if (clash === undefined) return;
  throw new ToolportError('NAME_COLLISION', describeClash(clash), {
    name: clash.name,
    plugin_id: clash.pluginId,
    taken_by: clash.takenBy,
  });
}

/** One sentence naming the name and both sides of a clash. */
export function describeClash(clash: NameClash): string {
  const owner = clash.takenBy === BUILT_IN ? 'a built-in tool' : `plugin "${clash.takenBy}"`;
  return `tool name "${clash.name}" of plugin "${clash.pluginId}" is already taken by ${owner}`;
}

/**
 * The startup rule of §2: among stored records, every plugin that clashes with an
 * earlier-installed one (by install_seq) or with a built-in name is returned with its reason;
 * it goes to `error`, every other plugin keeps its tools.
 */
export function clashingAtStartup(records: PluginRecord[], prefix: string): Map<string, string> {
  const ordered = [...records].sort((a, b) => a.install_seq - b.install_seq);
  const kept: NamedPlugin[] = [];
  const refused = new Map<string, string>();
  for (const record of ordered) {
    const candidate = namedPlugin(record);
    const [clash] = findNameClashes(candidate, kept, prefix);
    if (clash === undefined) kept.push(candidate);
    else refused.set(record.id, describeClash(clash));
  }
  return refused;
}

/** The collision view of a stored record. */
export function namedPlugin(record: Pick<PluginRecord, 'id' | 'manifest'>): NamedPlugin {
  return { id: record.id, toolNames: record.manifest.agent_tools.map((tool) => tool.name) };
}
