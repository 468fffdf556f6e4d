import fc from 'fast-check';
import type { CatalogTool } from '../../src/domain/catalog';
import {
  DEFAULT_POLICY,
  effectiveTools,
  normaliseProfile,
  normaliseScope,
  patternMatches,
  policyContentKey,
  policyOf,
  profileIncludes,
  sameScope,
  viewKey,
  whyNotInView,
  type ScopeView,
} from '../../src/domain/scopes';

function tool(pluginId: string, local: string, surfaces: CatalogTool['surfaces'] = ['kanban-task']): CatalogTool {
  return {
    plugin_id: pluginId,
    plugin_version: '1.0.0',
    local_name: local,
    exposed_name: `toolport_${pluginId.replace(/-/g, '_')}_${local}`,
    description: 'd',
    surfaces,
    input_schema: { type: 'object' },
    annotations: { read_only_hint: false, destructive_hint: false, idempotent_hint: false, open_world_hint: false },
  };
}

const view = (workspace: string, profile = 'default', surface: ScopeView['surface'] = 'kanban-task'): ScopeView => ({ workspace, profile, surface });

describe('patterns', () => {
  const jira = tool('jira', 'create_issue');

  it('matches the exposed name or the plugin id exactly when it has no *', () => {
    expect(patternMatches('toolport_jira_create_issue', jira)).toBe(true);
    expect(patternMatches('jira', jira)).toBe(true);
    expect(patternMatches('create_issue', jira)).toBe(false);
    expect(patternMatches('toolport_jira', jira)).toBe(false);
  });

  it('lets * stand for any run of characters, the empty one included, against either name', () => {
    expect(patternMatches('*', jira)).toBe(true);
    expect(patternMatches('*_create_*', jira)).toBe(true);
    expect(patternMatches('toolport_jira_*', jira)).toBe(true);
    expect(patternMatches('ji*ra', jira)).toBe(true);
    expect(patternMatches('*issue', jira)).toBe(true);
    expect(patternMatches('*delete*', jira)).toBe(false);
    expect(patternMatches('j*x', jira)).toBe(false);
  });

  it('treats every other character literally', () => {
    const dotted = tool('a.b', 'run');
    expect(patternMatches('a?b', dotted)).toBe(false);
    expect(patternMatches('a.b', dotted)).toBe(true);
    expect(patternMatches('[a].b', dotted)).toBe(false);
  });

  it('agrees with a reference regular expression on random patterns', () => {
    const alphabet = fc.constantFrom('a', 'b', '_', '*');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 8 }), fc.array(fc.constantFrom('a', 'b', '_'), { maxLength: 10 }), (patternChars, textChars) => {
        const pattern = patternChars.join('');
        const text = textChars.join('');
        const reference = (name: string) => (pattern.includes('*') ? new RegExp(`^${pattern.split('*').join('.*')}$`).test(name) : pattern === name);
        return patternMatches(pattern, { exposed_name: text, plugin_id: 'zz' }) === (reference(text) || reference('zz'));
      }),
    );
  });

  it('stays linear on a pattern that would make a backtracking matcher blow up', () => {
    const long = { exposed_name: 'a'.repeat(5000), plugin_id: 'p' };
    expect(patternMatches(`${'*a'.repeat(200)}*b`, long)).toBe(false);
  });
});

describe('profiles', () => {
  it('includes a tool some include pattern matches and no exclude pattern does', () => {
    const reviewer = { name: 'reviewer', include: ['*'], exclude: ['*_write*', 'deploy'] };
    expect(profileIncludes(reviewer, tool('notes', 'read'))).toBe(true);
    expect(profileIncludes(reviewer, tool('notes', 'write_note'))).toBe(false);
    expect(profileIncludes(reviewer, tool('deploy', 'run'))).toBe(false);
    expect(profileIncludes({ name: 'none', include: [], exclude: [] }, tool('notes', 'read'))).toBe(false);
  });

  it('is stored with patterns sorted and de-duplicated', () => {
    expect(normaliseProfile({ name: 'p', include: ['b', 'a', 'b'], exclude: ['z', 'z'] })).toEqual({ name: 'p', include: ['a', 'b'], exclude: ['z'] });
  });
});

describe('scopes', () => {
  it('are stored with lists sorted, duplicates removed and empty disabled lists dropped', () => {
    expect(normaliseScope({ workspaces: ['w2', 'w1', 'w2'], disabled_tools: { w9: [], w1: ['b', 'a', 'a'] } })).toEqual({
      workspaces: ['w1', 'w2'],
      disabled_tools: { w1: ['a', 'b'] },
    });
    expect(sameScope({ workspaces: ['b', 'a'], disabled_tools: { x: [] } }, { workspaces: ['a', 'b'], disabled_tools: {} })).toBe(true);
  });

  it('leaves the default scope out of a policy, so it reads as never set', () => {
    const policy = policyOf([['p', { workspaces: '*', disabled_tools: { w: [] } }]], []);
    expect(policy.scopes.size).toBe(0);
    expect(policyContentKey(policy)).toBeNull();
  });
});

describe("a session's effective tools", () => {
  const notesRead = tool('notes', 'read');
  const notesWrite = tool('notes', 'write');
  const jira = tool('jira', 'create_issue');
  const office = tool('docs', 'render', ['office-task']);
  const catalog = [jira, notesRead, notesWrite, office];
  const policy = policyOf(
    [
      ['jira', { workspaces: ['team-a'], disabled_tools: {} }],
      ['notes', { workspaces: '*', disabled_tools: { 'team-b': ['write'] } }],
    ],
    [{ name: 'reviewer', include: ['*'], exclude: ['*_write'] }],
  );
  const names = (tools: CatalogTool[]) => tools.map((t) => t.exposed_name);

  it('keeps only tools of its surface, from plugins enabled for its workspace, not disabled there, that its profile includes', () => {
    expect(names(effectiveTools(catalog, policy, view('team-a')))).toEqual(['toolport_jira_create_issue', 'toolport_notes_read', 'toolport_notes_write']);
    expect(names(effectiveTools(catalog, policy, view('team-b')))).toEqual(['toolport_notes_read']);
    expect(names(effectiveTools(catalog, policy, view('team-a', 'reviewer')))).toEqual(['toolport_jira_create_issue', 'toolport_notes_read']);
    expect(names(effectiveTools(catalog, policy, view('team-a', 'default', 'office-task')))).toEqual(['toolport_docs_render']);
  });

  it('says why a tool is left out', () => {
    expect(whyNotInView(office, policy, view('team-a'))).toBe('surface');
    expect(whyNotInView(jira, policy, view('team-b'))).toBe('workspace');
    expect(whyNotInView(notesWrite, policy, view('team-b'))).toBe('disabled');
    expect(whyNotInView(notesWrite, policy, view('team-a', 'reviewer'))).toBe('profile');
    expect(whyNotInView(notesRead, policy, view('team-a'))).toBeNull();
  });

  it('disables a tool listed under * in every workspace', () => {
    const everywhere = policyOf([['notes', { workspaces: '*', disabled_tools: { '*': ['write'] } }]], []);
    expect(whyNotInView(notesWrite, everywhere, view('any'))).toBe('disabled');
  });

  it('includes nothing for a profile that does not exist', () => {
    expect(effectiveTools(catalog, policy, view('team-a', 'gone'))).toEqual([]);
  });

  it('is every surface tool under the default policy, and a plugin enabled nowhere contributes nothing', () => {
    expect(names(effectiveTools(catalog, DEFAULT_POLICY, view('x')))).toEqual(names([jira, notesRead, notesWrite]));
    const nowhere = policyOf([['notes', { workspaces: [], disabled_tools: {} }]], []);
    expect(names(effectiveTools(catalog, nowhere, view('x')))).toEqual(['toolport_jira_create_issue']);
  });

  it('gives sessions of one (surface, workspace, profile) one view key, and any difference another', () => {
    expect(viewKey(view('a'))).toBe(viewKey(view('a')));
    expect(new Set([view('a'), view('b'), view('a', 'r'), view('a', 'default', 'office-task')].map(viewKey)).size).toBe(4);
  });
});
