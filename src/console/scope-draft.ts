import type { PluginScope } from '../api';

/** The `disabled_tools` key that applies in every workspace. */
export const EVERY_WORKSPACE = '*';

/**
 * A plugin's scope as its editor holds it (docs/catalog-and-sessions.md, "Scopes"): every
 * workspace or the ids typed in one field, and one row of disabled tools per workspace key,
 * the `*` row (every workspace) always first.
 */
export interface ScopeDraft {
  all: boolean;
  /** Comma-separated workspace ids, as typed; kept while "All workspaces" is chosen. */
  workspacesText: string;
  rows: Array<{ workspace: string; disabled: string[] }>;
}

/** The draft of a stored scope. */
export function draftOf(scope: PluginScope): ScopeDraft {
  const all = scope.workspaces === EVERY_WORKSPACE;
  const keys = Object.keys(scope.disabled_tools).filter((k) => k !== EVERY_WORKSPACE);
  return {
    all,
    workspacesText: all ? '' : (scope.workspaces as string[]).join(', '),
    rows: [EVERY_WORKSPACE, ...keys].map((workspace) => ({ workspace, disabled: [...(scope.disabled_tools[workspace] ?? [])] })),
  };
}

/** The ids of a comma- (or space-) separated list, in order, without blanks or repeats. */
export function workspaceList(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((id) => id !== ''))];
}

/**
 * The scope a draft stands for, as PUT sends it: every row with something disabled, as it is.
 * Nothing is checked here; the API names each bad id or tool name with its path.
 */
export function scopeOfDraft(draft: ScopeDraft): PluginScope {
  const disabled: Record<string, string[]> = {};
  for (const row of draft.rows) if (row.disabled.length > 0) disabled[row.workspace] = [...row.disabled];
  return { workspaces: draft.all ? EVERY_WORKSPACE : workspaceList(draft.workspacesText), disabled_tools: disabled };
}

/** The draft with `local` turned off (or back on) in `workspace`'s row. */
export function toggled(draft: ScopeDraft, workspace: string, local: string, off: boolean): ScopeDraft {
  return {
    ...draft,
    rows: draft.rows.map((row) => {
      if (row.workspace !== workspace) return row;
      const rest = row.disabled.filter((name) => name !== local);
      return { workspace, disabled: off ? [...rest, local] : rest };
    }),
  };
}

/** The draft with a row for `workspace` (trimmed) added last, or why it cannot be. */
export function withRow(draft: ScopeDraft, workspace: string): ScopeDraft | { problem: string } {
  const id = workspace.trim();
  if (id === '') return { problem: 'Type a workspace id first.' };
  if (draft.rows.some((row) => row.workspace === id)) return { problem: `There is a row for ${id === EVERY_WORKSPACE ? 'every workspace' : id} already.` };
  return { ...draft, rows: [...draft.rows, { workspace: id, disabled: [] }] };
}

/** The draft without `workspace`'s row (the `*` row stays). */
export function withoutRow(draft: ScopeDraft, workspace: string): ScopeDraft {
  if (workspace === EVERY_WORKSPACE) return draft;
  return { ...draft, rows: draft.rows.filter((row) => row.workspace !== workspace) };
}

/**
 * The tool columns: the local names the installed version declares, in its order, then any
 * name the draft disables that it no longer declares (an upgrade keeps them; they disable nothing).
 */
export function toolColumns(declared: readonly string[], draft: ScopeDraft): Array<{ name: string; declared: boolean }> {
  const known = new Set(declared);
  const kept = [...new Set(draft.rows.flatMap((row) => row.disabled))].filter((name) => !known.has(name)).sort();
  return [...declared.map((name) => ({ name, declared: true })), ...kept.map((name) => ({ name, declared: false }))];
}

/** How a workspace key reads in a control's name: `*` is every workspace. */
export function workspaceWords(workspace: string): string {
  return workspace === EVERY_WORKSPACE ? 'every workspace' : workspace;
}

/** One pattern per line, as a profile's textareas hold them, back to a list without blank lines. */
export function patternLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
