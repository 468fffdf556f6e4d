/**
 * Whose Host entries a request reaches (docs/plugin-protocol.md, "Host API scopes"): the
 * plugin's own (`instance`), those of the workspace of the call it serves, or those of that
 * call's task. The host takes the workspace and task from the call, never from the plugin.
 */
export type EntryScope = 'instance' | 'workspace' | 'task';

/** One set of entries: the 10000-key limit counts per owner, and owners never see each other's keys. */
export interface EntryOwner {
  readonly pluginId: string;
  readonly scope: EntryScope;
  /** '' for `instance`; the workspace id; or, for `task`, the JSON text of `[workspace id, task id]`. */
  readonly scopeId: string;
}

export function instanceOwner(pluginId: string): EntryOwner {
  return { pluginId, scope: 'instance', scopeId: '' };
}

export function workspaceOwner(pluginId: string, workspaceId: string): EntryOwner {
  return { pluginId, scope: 'workspace', scopeId: workspaceId };
}

/** A task's id is unique only within its workspace, so both name its entries. */
export function taskOwner(pluginId: string, workspaceId: string, taskId: string): EntryOwner {
  return { pluginId, scope: 'task', scopeId: JSON.stringify([workspaceId, taskId]) };
}

/** What a scoped secret is sealed with beside its key: an instance secret keeps the context it always had. */
export function secretSealContext(owner: EntryOwner, key: string): string {
  if (owner.scope === 'instance') return `secret:${owner.pluginId}:${key}`;
  return `secret:${owner.pluginId}:${JSON.stringify([owner.scope, owner.scopeId, key])}`;
}
