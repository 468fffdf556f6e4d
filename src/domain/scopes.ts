import type { CatalogSnapshot, CatalogTool } from './catalog';
import { canonicalJson } from './canonical-json';
import type { JsonValue } from './json';
import type { LinkedSession } from './session';
import type { Surface } from './surfaces';

/**
 * Scopes (docs/catalog-and-sessions.md, "Scopes"): which plugins serve which workspaces, which
 * tools a workspace turns off, and the profiles that narrow a session's tools further. The
 * backend computes each session's effective tools from the catalog and this policy; nothing
 * here knows about stores or links.
 */

/** A profile's name: what `session start --profile` takes. */
export const PROFILE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const DEFAULT_PROFILE_NAME = 'default';
/** The workspace key of `disabled_tools` that applies in every workspace. */
export const EVERY_WORKSPACE = '*';

/** Where one plugin contributes tools. */
export interface PluginScope {
  /** `*` = every workspace; a list = only those (`[]` = none). */
  workspaces: typeof EVERY_WORKSPACE | string[];
  /** Local tool names turned off, per workspace id or `*` (every workspace). */
  disabled_tools: Record<string, string[]>;
}

export interface Profile {
  name: string;
  /** A tool is in the profile when some include pattern matches it… */
  include: string[];
  /** …and no exclude pattern does. */
  exclude: string[];
}

/** What every plugin has until its scope is set: every workspace, nothing disabled. */
export const DEFAULT_SCOPE: PluginScope = Object.freeze({ workspaces: EVERY_WORKSPACE, disabled_tools: Object.freeze({}) }) as PluginScope;
/** Always there; it can be changed, never deleted. */
export const DEFAULT_PROFILE: Profile = Object.freeze({ name: DEFAULT_PROFILE_NAME, include: ['*'], exclude: [] }) as Profile;

/**
 * Every stored scope and profile. A plugin without an entry in `scopes` has DEFAULT_SCOPE; the
 * `default` profile is always in `profiles` (use policyOf to build one).
 */
export interface CatalogPolicy {
  readonly scopes: ReadonlyMap<string, PluginScope>;
  readonly profiles: ReadonlyMap<string, Profile>;
}

/** The policy of an installation that never set a scope or a profile. */
export const DEFAULT_POLICY: CatalogPolicy = policyOf([], []);

/** A policy from stored scopes and profiles, normalised; `default` is added when absent. */
export function policyOf(scopes: Iterable<readonly [string, PluginScope]>, profiles: Iterable<Profile>): CatalogPolicy {
  const scopeMap = new Map<string, PluginScope>();
  for (const [pluginId, scope] of scopes) {
    const normal = normaliseScope(scope);
    if (!isDefaultScope(normal)) scopeMap.set(pluginId, normal);
  }
  const profileMap = new Map<string, Profile>([[DEFAULT_PROFILE_NAME, DEFAULT_PROFILE]]);
  for (const profile of profiles) profileMap.set(profile.name, normaliseProfile(profile));
  return { scopes: scopeMap, profiles: profileMap };
}

/** The scope `pluginId` has under `policy`. */
export function scopeOf(policy: CatalogPolicy, pluginId: string): PluginScope {
  return policy.scopes.get(pluginId) ?? DEFAULT_SCOPE;
}

/** Sorted, without duplicates. */
function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The scope as it is stored: lists sorted and de-duplicated, empty `disabled_tools` lists dropped. */
export function normaliseScope(scope: PluginScope): PluginScope {
  const disabled: Record<string, string[]> = {};
  for (const workspace of sortedUnique(Object.keys(scope.disabled_tools))) {
    const names = sortedUnique(scope.disabled_tools[workspace] ?? []);
    if (names.length > 0) disabled[workspace] = names;
  }
  return { workspaces: scope.workspaces === EVERY_WORKSPACE ? EVERY_WORKSPACE : sortedUnique(scope.workspaces), disabled_tools: disabled };
}

export function isDefaultScope(scope: PluginScope): boolean {
  return scope.workspaces === EVERY_WORKSPACE && Object.keys(scope.disabled_tools).length === 0;
}

/** The profile as it is stored: patterns sorted and de-duplicated. */
export function normaliseProfile(profile: Profile): Profile {
  return { name: profile.name, include: sortedUnique(profile.include), exclude: sortedUnique(profile.exclude) };
}

/** Equal after normalisation: a PUT of what is stored changes nothing. */
export function sameScope(a: PluginScope, b: PluginScope): boolean {
  return canonicalJson(normaliseScope(a) as unknown as JsonValue) === canonicalJson(normaliseScope(b) as unknown as JsonValue);
}

export function sameProfile(a: Profile, b: Profile): boolean {
  return canonicalJson(normaliseProfile(a) as unknown as JsonValue) === canonicalJson(normaliseProfile(b) as unknown as JsonValue);
}

/** What a pattern is matched against: the name agents see and the plugin's id. */
export type PatternSubject = Pick<CatalogTool, 'exposed_name' | 'plugin_id'>;

/**
 * Whether `pattern` matches the tool: equal to its exposed name or plugin id, or, when it holds
 * `*`, matching either with each `*` standing for any run of characters (the empty one too).
 * Nothing else is special.
 */
export function patternMatches(pattern: string, tool: PatternSubject): boolean {
  if (!pattern.includes('*')) return pattern === tool.exposed_name || pattern === tool.plugin_id;
  return globMatches(pattern, tool.exposed_name) || globMatches(pattern, tool.plugin_id);
}

/** `*`-only glob, linear in the text for each part (no backtracking blow-up). */
function globMatches(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    if (middle === '') continue;
    const found = text.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/** Whether `profile` includes the tool: an include pattern matches it and no exclude pattern does. */
export function profileIncludes(profile: Profile, tool: PatternSubject): boolean {
  return profile.include.some((pattern) => patternMatches(pattern, tool)) && !profile.exclude.some((pattern) => patternMatches(pattern, tool));
}

/** Whether the plugin with `scope` serves sessions of `workspace`. */
export function enabledFor(scope: PluginScope, workspace: string): boolean {
  return scope.workspaces === EVERY_WORKSPACE || scope.workspaces.includes(workspace);
}

/** Whether `scope` turns the tool `localName` off in `workspace` (listed for it or for `*`). */
export function disabledIn(scope: PluginScope, workspace: string, localName: string): boolean {
  return (scope.disabled_tools[workspace]?.includes(localName) ?? false) || (scope.disabled_tools[EVERY_WORKSPACE]?.includes(localName) ?? false);
}

/** What a session's effective tools depend on: sessions sharing it share one view. */
export interface ScopeView {
  workspace: string;
  profile: string;
  surface: Surface;
}

/** The view of a linked session. */
export function viewOf(session: Pick<LinkedSession, 'workspace_id' | 'profile' | 'surface'>): ScopeView {
  return { workspace: session.workspace_id, profile: session.profile, surface: session.surface };
}

/** One key per distinct view. */
export function viewKey(view: ScopeView): string {
  return `${view.surface}\u0000${view.workspace}\u0000${view.profile}`;
}

/** Why a catalog tool is not among a view's effective tools; null when it is. */
export type NotInViewReason = 'surface' | 'workspace' | 'disabled' | 'profile';

/** What the view rules read of a tool. */
export type ViewSubject = Pick<CatalogTool, 'exposed_name' | 'plugin_id' | 'local_name' | 'surfaces'>;

export function whyNotInView(tool: ViewSubject, policy: CatalogPolicy, view: ScopeView): NotInViewReason | null {
  if (!(tool.surfaces as readonly string[]).includes(view.surface)) return 'surface';
  const scope = scopeOf(policy, tool.plugin_id);
  if (!enabledFor(scope, view.workspace)) return 'workspace';
  if (disabledIn(scope, view.workspace, tool.local_name)) return 'disabled';
  const profile = policy.profiles.get(view.profile);
  // A profile that does not exist (deleted under a racing session) includes nothing.
  if (!profile || !profileIncludes(profile, tool)) return 'profile';
  return null;
}

/** Whether the tool is among the view's effective tools. */
export function inView(tool: ViewSubject, policy: CatalogPolicy, view: ScopeView): boolean {
  return whyNotInView(tool, policy, view) === null;
}

/** The view's effective plugin tools, in the catalog's order (built-in tools are the agentctl's own). */
export function effectiveTools(tools: readonly CatalogTool[], policy: CatalogPolicy, view: ScopeView): CatalogTool[] {
  return tools.filter((tool) => inView(tool, policy, view));
}

/**
 * What a session of `view` is sent: the whole catalog's generation and revision with the view's
 * effective tools only (docs/catalog-and-sessions.md).
 */
export function viewSnapshot(snapshot: CatalogSnapshot, policy: CatalogPolicy, view: ScopeView): CatalogSnapshot {
  return { generation: snapshot.generation, revision: snapshot.revision, tools: effectiveTools(snapshot.tools, policy, view) };
}

/**
 * Canonical text of the policy, or null for DEFAULT_POLICY: the catalog's content hash takes it
 * in, so every stored scope or profile change moves the revision by one, and an installation
 * that never set one keeps the hash (and revision) it had before scopes existed.
 */
export function policyContentKey(policy: CatalogPolicy): string | null {
  const defaultProfile = policy.profiles.get(DEFAULT_PROFILE_NAME);
  const untouched = policy.scopes.size === 0 && policy.profiles.size === 1 && defaultProfile !== undefined && sameProfile(defaultProfile, DEFAULT_PROFILE);
  if (untouched) return null;
  const scopes = [...policy.scopes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([pluginId, scope]) => [pluginId, normaliseScope(scope)]);
  const profiles = [...policy.profiles.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(normaliseProfile);
  return canonicalJson({ scopes, profiles } as unknown as JsonValue);
}
