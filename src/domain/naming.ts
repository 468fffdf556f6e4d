import type { PluginRecord } from './plugin-record';

export const DEFAULT_TOOL_PREFIX = 'kandev';
export const TOOL_PREFIX_PATTERN = /^[a-z][a-z0-9_]{0,15}$/;
/** Built-in tool names of agentctl; reserved, no plugin tool may take them. */
export const BUILT_IN_TOOL_NAMES: readonly string[] = ['get_task_context'];

/** CONTRACT §2 slug: lower-cased id, chars outside [a-z0-9_] → `_`, `_` trimmed at both ends. */
export function pluginSlug(pluginId: string): string {
  throw new Error(`not implemented yet: pluginSlug(${pluginId})`);
}

/** CONTRACT §2 exposed name `<prefix>_<slug>_<name>`, hashed and cut to 64 when longer. */
export function exposedToolName(prefix: string, pluginId: string, localName: string): string {
  throw new Error(`not implemented yet: exposedToolName(${prefix}, ${pluginId}, ${localName})`);
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
  throw new Error(`not implemented yet: findNameClashes(${candidate.id}, ${others.length}, ${prefix})`);
}

/** Throws ToolportError NAME_COLLISION naming both plugins and the name when there is a clash. */
export function assertNoNameClash(candidate: NamedPlugin, others: NamedPlugin[], prefix: string): void {
  throw new Error(`not implemented yet: assertNoNameClash(${candidate.id}, ${others.length}, ${prefix})`);
}

/**
 * The startup rule of §2: among stored records, every plugin that clashes with an
 * earlier-installed one (by install_seq) or with a built-in name is returned with its reason;
 * it goes to `error`, every other plugin keeps its tools.
 */
export function clashingAtStartup(records: PluginRecord[], prefix: string): Map<string, string> {
  throw new Error(`not implemented yet: clashingAtStartup(${records.length}, ${prefix})`);
}
