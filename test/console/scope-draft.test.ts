import {
  draftOf,
  patternLines,
  scopeOfDraft,
  toggled,
  toolColumns,
  withoutRow,
  withRow,
  workspaceList,
  workspaceWords,
  type ScopeDraft,
} from '../../src/console/scope-draft';

describe("the console's scope draft", () => {
  it('opens the default scope as every workspace with an empty * row', () => {
    expect(draftOf({ workspaces: '*', disabled_tools: {} })).toEqual({ all: true, workspacesText: '', rows: [{ workspace: '*', disabled: [] }] });
    expect(scopeOfDraft(draftOf({ workspaces: '*', disabled_tools: {} }))).toEqual({ workspaces: '*', disabled_tools: {} });
  });

  it('opens a stored scope with its list as text and a row per workspace key, the * row first', () => {
    const draft = draftOf({ workspaces: ['ws-a', 'ws-b'], disabled_tools: { 'ws-b': ['add_note'], '*': ['echo'] } });
    expect(draft).toEqual({
      all: false,
      workspacesText: 'ws-a, ws-b',
      rows: [
        { workspace: '*', disabled: ['echo'] },
        { workspace: 'ws-b', disabled: ['add_note'] },
      ],
    });
    expect(scopeOfDraft(draft)).toEqual({ workspaces: ['ws-a', 'ws-b'], disabled_tools: { '*': ['echo'], 'ws-b': ['add_note'] } });
  });

  it('reads the workspace field as comma- or space-separated ids, without blanks or repeats', () => {
    expect(workspaceList(' ws-a,ws-b ,, ws-a  ws-c\n')).toEqual(['ws-a', 'ws-b', 'ws-c']);
    expect(workspaceList('  ')).toEqual([]);
  });

  it('sends an empty list as enabled nowhere, and the list typed while All is chosen is not sent', () => {
    const nowhere: ScopeDraft = { all: false, workspacesText: ' , ', rows: [{ workspace: '*', disabled: [] }] };
    expect(scopeOfDraft(nowhere).workspaces).toEqual([]);
    expect(scopeOfDraft({ ...nowhere, all: true, workspacesText: 'ws-a' }).workspaces).toBe('*');
  });

  it('turns a tool off and on in one row only, and drops rows with nothing disabled from what it sends', () => {
    let draft = draftOf({ workspaces: '*', disabled_tools: {} });
    const added = withRow(draft, ' ws-a ');
    if ('problem' in added) throw new Error(added.problem);
    draft = toggled(toggled(added, 'ws-a', 'echo', true), 'ws-a', 'shout', true);
    expect(scopeOfDraft(draft).disabled_tools).toEqual({ 'ws-a': ['echo', 'shout'] });
    draft = toggled(draft, 'ws-a', 'echo', false);
    draft = toggled(draft, 'ws-a', 'shout', true);
    expect(scopeOfDraft(draft).disabled_tools).toEqual({ 'ws-a': ['shout'] });
    expect(scopeOfDraft(toggled(draft, 'ws-a', 'shout', false)).disabled_tools).toEqual({});
  });

  it('refuses a blank row or one already there, and never removes the * row', () => {
    const draft = draftOf({ workspaces: '*', disabled_tools: { 'ws-a': ['echo'] } });
    expect(withRow(draft, '  ')).toEqual({ problem: 'Type a workspace id first.' });
    expect(withRow(draft, 'ws-a')).toEqual({ problem: 'There is a row for ws-a already.' });
    expect(withRow(draft, '*')).toEqual({ problem: 'There is a row for every workspace already.' });
    expect(withoutRow(draft, '*')).toBe(draft);
    expect(withoutRow(draft, 'ws-a').rows).toEqual([{ workspace: '*', disabled: [] }]);
  });

  it('has a column per declared tool, then each name the scope keeps that the version no longer declares', () => {
    const draft = draftOf({ workspaces: '*', disabled_tools: { '*': ['zeta', 'echo'], 'ws-a': ['gone'] } });
    expect(toolColumns(['shout', 'echo'], draft)).toEqual([
      { name: 'shout', declared: true },
      { name: 'echo', declared: true },
      { name: 'gone', declared: false },
      { name: 'zeta', declared: false },
    ]);
  });

  it('names the * key as every workspace in control names', () => {
    expect(workspaceWords('*')).toBe('every workspace');
    expect(workspaceWords('ws-a')).toBe('ws-a');
  });

  it('reads a profile textarea as one pattern per line, trimmed, blank lines left out', () => {
    expect(patternLines('kandev_*\n\n  toolport.echo  \r\n')).toEqual(['kandev_*', 'toolport.echo']);
    expect(patternLines('')).toEqual([]);
  });
});
