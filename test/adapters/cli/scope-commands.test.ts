import { catalogViewQuery } from '../../../src/adapters/cli/commands/session-commands';
import { describeScope, editedScope, scopeCommands, scopeEditsOf, toolInWorkspace } from '../../../src/adapters/cli/commands/scope-commands';
import { UsageError } from '../../../src/adapters/cli/exit-codes';
import { COMMAND_IDS, runCli, type CommandHandlers, type CommandInput } from '../../../src/adapters/cli/program';

function handlersCapturing(seen: Array<{ id: string; input: CommandInput }>, some: Partial<CommandHandlers> = {}): CommandHandlers {
  return Object.fromEntries(COMMAND_IDS.map((id) => [id, some[id] ?? (async (input: CommandInput) => (seen.push({ id, input }), 0))])) as CommandHandlers;
}

function io() {
  const err: string[] = [];
  return { io: { env: {}, stdout: () => undefined, stderr: (t: string) => err.push(t) }, err };
}

describe('toolport plugin scope and profile', () => {
  it('routes the scope and profile commands with repeatable flags collected in order', async () => {
    const seen: Array<{ id: string; input: CommandInput }> = [];
    const run = (argv: string[]) => runCli(argv, handlersCapturing(seen), io().io);
    expect(await run(['plugin', 'scope', 'acme.notes', '--disable-tool', 'ws-1:add', '--disable-tool', '*:list', '--enable-tool', 'ws-2:remove'])).toBe(0);
    expect(await run(['profile', 'set', 'ops', '--include', 'acme.*', '--include', 'x', '--exclude', '*_remove'])).toBe(0);
    expect(await run(['profile', 'list'])).toBe(0);
    expect(await run(['profile', 'get', 'ops', '--json'])).toBe(0);
    expect(await run(['profile', 'delete', 'ops'])).toBe(0);
    expect(seen.map((s) => s.id)).toEqual(['plugin.scope', 'profile.set', 'profile.list', 'profile.get', 'profile.delete']);
    expect(seen[0]!.input.options).toMatchObject({ disableTool: ['ws-1:add', '*:list'], enableTool: ['ws-2:remove'] });
    expect(seen[1]!.input.options).toMatchObject({ include: ['acme.*', 'x'], exclude: ['*_remove'] });
    expect(seen[3]!.input.global.json).toBe(true);
  });

  it('needs --include for profile set (usage, exit 2)', async () => {
    expect(await runCli(['profile', 'set', 'ops'], handlersCapturing([]), io().io)).toBe(2);
  });

  it('refuses contradicting scope flags as usage errors (exit 2) before reaching any backend', async () => {
    const handlers = handlersCapturing([], scopeCommands(io().io));
    const cli = io();
    expect(await runCli(['plugin', 'scope', 'p', '--workspaces', 'a', '--all-workspaces'], handlers, cli.io)).toBe(2);
    expect(cli.err.join('')).toContain('give --workspaces or --all-workspaces, not both');
    expect(await runCli(['plugin', 'scope', 'p', '--disable-tool', 'add'], handlers, io().io)).toBe(2);
    expect(await runCli(['plugin', 'scope', 'p', '--disable-tool', 'w:add', '--enable-tool', 'w:add'], handlers, io().io)).toBe(2);
  });

  it('splits WS:LOCAL at the last colon', () => {
    expect(toolInWorkspace('--disable-tool', 'team:a:add')).toEqual({ workspace: 'team:a', local: 'add' });
    expect(toolInWorkspace('--disable-tool', '*:add')).toEqual({ workspace: '*', local: 'add' });
    for (const bad of ['add', ':add', 'ws:']) expect(() => toolInWorkspace('--disable-tool', bad)).toThrow(UsageError);
  });

  it('reads no flag as "print", and the workspace flags as every, some or none', () => {
    expect(scopeEditsOf({ disableTool: [], enableTool: [] })).toBeNull();
    expect(scopeEditsOf({ allWorkspaces: true })?.workspaces).toBe('*');
    expect(scopeEditsOf({ workspaces: 'ws-1, ws-2,' })?.workspaces).toEqual(['ws-1', 'ws-2']);
    expect(scopeEditsOf({ workspaces: '' })?.workspaces).toEqual([]);
  });

  it('edits the scope it read: disables add to the workspace list, enables remove, the rest kept', () => {
    const scope = { workspaces: ['ws-1'], disabled_tools: { '*': ['list'], 'ws-1': ['add'] } };
    const edits = scopeEditsOf({ disableTool: ['ws-2:add', 'ws-1:remove'], enableTool: ['*:list'] })!;
    expect(editedScope(scope, edits)).toEqual({ workspaces: ['ws-1'], disabled_tools: { '*': [], 'ws-1': ['add', 'remove'], 'ws-2': ['add'] } });
    expect(scope.disabled_tools['ws-1']).toEqual(['add']);
  });

  it('prints a scope for people', () => {
    expect(describeScope('acme.notes', { workspaces: '*', disabled_tools: {} })).toBe('acme.notes serves every workspace\nDisabled tools: none\n');
    expect(describeScope('acme.notes', { workspaces: ['a', 'b'], disabled_tools: { '*': ['x', 'y'] } })).toBe(
      'acme.notes serves workspaces a, b\nDisabled tools:\n  *: x, y\n',
    );
    expect(describeScope('p', { workspaces: [], disabled_tools: {} })).toMatch(/^p serves no workspace\n/);
  });
});

describe('toolport catalog view options', () => {
  it('asks for the whole catalog with none, a view with all three, and is a usage error otherwise', () => {
    expect(catalogViewQuery({})).toBeUndefined();
    expect(catalogViewQuery({ workspace: 'w', profile: 'p', surface: 'kanban-task' })).toEqual({ workspace: 'w', profile: 'p', surface: 'kanban-task' });
    expect(() => catalogViewQuery({ workspace: 'w' })).toThrow('--workspace, --profile and --surface go together: --profile and --surface missing');
  });
});
