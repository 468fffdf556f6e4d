import { ProfileInvalidError, ScopeInvalidError, type Violation } from '../../src/domain/errors';
import { readPluginScope, readProfile } from '../../src/domain/scope-validation';
import { DEFAULT_SCOPE, type PluginScope } from '../../src/domain/scopes';
import { workspaceIdProblem } from '../../src/domain/workspace-id';

const DECLARED = ['add', 'list', 'remove'];

function scopeViolations(body: unknown, stored: PluginScope = DEFAULT_SCOPE): Violation[] {
  try {
    readPluginScope(body, DECLARED, stored);
  } catch (error) {
    expect(error).toBeInstanceOf(ScopeInvalidError);
    expect((error as ScopeInvalidError).code).toBe('SCOPE_INVALID');
    return (error as ScopeInvalidError).violations;
  }
  throw new Error('the scope was accepted');
}

function profileViolations(name: string, body: unknown): Violation[] {
  try {
    readProfile(name, body);
  } catch (error) {
    expect(error).toBeInstanceOf(ProfileInvalidError);
    expect((error as ProfileInvalidError).code).toBe('PROFILE_INVALID');
    return (error as ProfileInvalidError).violations;
  }
  throw new Error('the profile was accepted');
}

describe('a plugin scope body', () => {
  it('reads every workspace, a list of workspaces and none, normalised: sorted, without duplicates or empty lists', () => {
    expect(readPluginScope({ workspaces: '*', disabled_tools: {} }, DECLARED, DEFAULT_SCOPE)).toEqual(DEFAULT_SCOPE);
    expect(readPluginScope({ workspaces: [], disabled_tools: {} }, DECLARED, DEFAULT_SCOPE)).toEqual({ workspaces: [], disabled_tools: {} });
    expect(
      readPluginScope(
        { workspaces: ['ws-2', 'ws-1', 'ws-2'], disabled_tools: { 'ws-1': ['remove', 'add', 'add'], '*': ['list'], 'ws-3': [] } },
        DECLARED,
        DEFAULT_SCOPE,
      ),
    ).toEqual({ workspaces: ['ws-1', 'ws-2'], disabled_tools: { '*': ['list'], 'ws-1': ['add', 'remove'] } });
  });

  it('requires both keys and refuses any other field', () => {
    expect(scopeViolations({})).toEqual([
      { path: 'workspaces', message: 'is required' },
      { path: 'disabled_tools', message: 'is required' },
    ]);
    expect(scopeViolations({ workspaces: '*', disabled_tools: {}, disabled_tool: {} })).toEqual([
      { path: 'disabled_tool', message: 'is not a field of a scope (workspaces, disabled_tools)' },
    ]);
  });

  it('refuses what is not an object, naming the root', () => {
    expect(scopeViolations([1])).toEqual([{ path: '(root)', message: 'the scope must be a JSON object {"workspaces", "disabled_tools"}, not a list' }]);
    expect(scopeViolations(null)[0]!.path).toBe('(root)');
  });

  it('reports every violation at once, each at its path', () => {
    const violations = scopeViolations({ workspaces: ['ws-1', '*', '', 4], disabled_tools: { 'ws-1': ['add', 'nope', ''], '*': 'add', '': ['add'] } });
    expect(violations.map((v) => v.path)).toEqual([
      'workspaces[1]',
      'workspaces[2]',
      'workspaces[3]',
      'disabled_tools["ws-1"][1]',
      'disabled_tools["ws-1"][2]',
      'disabled_tools["*"]',
      'disabled_tools[""]',
    ]);
    expect(violations[0]!.message).toBe('must not be "*", which stands for every workspace');
    expect(violations[3]!.message).toBe('"nope" is not a tool the plugin declares');
  });

  it('takes "*" only as every workspace, never another word', () => {
    expect(scopeViolations({ workspaces: 'all', disabled_tools: {} })).toEqual([
      { path: 'workspaces', message: 'must be "*" (every workspace) or a list of workspace ids ([] for none), not a string' },
    ]);
  });

  it('accepts a disabled name the plugin no longer declares only where the stored scope already lists it', () => {
    const stored: PluginScope = { workspaces: '*', disabled_tools: { 'ws-1': ['gone'] } };
    expect(readPluginScope({ workspaces: '*', disabled_tools: { 'ws-1': ['gone', 'add'] } }, DECLARED, stored)).toEqual({
      workspaces: '*',
      disabled_tools: { 'ws-1': ['add', 'gone'] },
    });
    expect(scopeViolations({ workspaces: '*', disabled_tools: { 'ws-2': ['gone'] } }, stored)).toEqual([
      { path: 'disabled_tools["ws-2"][0]', message: '"gone" is not a tool the plugin declares' },
    ]);
  });
});

describe('a profile body', () => {
  it('reads include and exclude, sorted and de-duplicated, exclude defaulting to none', () => {
    expect(readProfile('ops', { include: ['b*', 'a', 'b*'] })).toEqual({ name: 'ops', include: ['a', 'b*'], exclude: [] });
    expect(readProfile('ops', { name: 'ops', include: ['*'], exclude: ['*_delete', 'acme.x'] })).toEqual({
      name: 'ops',
      include: ['*'],
      exclude: ['*_delete', 'acme.x'],
    });
    expect(readProfile('none', { include: [] }).include).toEqual([]);
  });

  it('reports every violation: the name, a missing include, a bad pattern, another name, an unknown field', () => {
    expect(profileViolations('Ops', { name: 'other', exclude: ['', 3, 'x\u0007'], includes: ['*'] })).toEqual([
      { path: 'name', message: 'must match ^[a-z0-9][a-z0-9._-]{0,63}$' },
      { path: 'includes', message: 'is not a field of a profile (name, include, exclude)' },
      { path: 'name', message: 'must be absent or the name in the path ("Ops")' },
      { path: 'include', message: 'is required' },
      { path: 'exclude[0]', message: 'must be a non-empty string, not an empty string' },
      { path: 'exclude[1]', message: 'must be a non-empty string, not a number' },
      { path: 'exclude[2]', message: 'must not contain control characters' },
    ]);
  });

  it('refuses a list that is not one, and a body that is not an object', () => {
    expect(profileViolations('ops', { include: '*' })).toEqual([
      { path: 'include', message: "must be a list of patterns (a tool's exposed name or plugin id, * for any run of characters), not a string" },
    ]);
    expect(profileViolations('ops', 'x')).toEqual([{ path: '(root)', message: 'the profile must be a JSON object {"include", "exclude"}, not a string' }]);
  });
});

describe('a workspace id', () => {
  it('is a non-blank string of at most 256 characters, and not *', () => {
    expect(workspaceIdProblem('acme')).toBeNull();
    expect(workspaceIdProblem('w'.repeat(256))).toBeNull();
    for (const bad of ['', '   ', 'w'.repeat(257), 3, null]) expect(workspaceIdProblem(bad)).toMatch(/^must be a non-empty string/);
    expect(workspaceIdProblem('*')).toBe('must not be "*", which stands for every workspace');
  });
});
