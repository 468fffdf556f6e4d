import type { PluginScope, Profile } from '../../../api';
import type { ApiAnswer } from '../api-client';
import { UsageError } from '../exit-codes';
import { formatTable } from '../table';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { runApiCommand, runApiWork } from './api-command';

/** One `--disable-tool` or `--enable-tool` value: a workspace id (or `*`) and a tool's local name. */
export interface ToolInWorkspace {
  workspace: string;
  local: string;
}

/** What the `plugin scope` flags change; null when none is given (the scope is printed). */
export interface ScopeEdits {
  workspaces?: PluginScope['workspaces'];
  disable: ToolInWorkspace[];
  enable: ToolInWorkspace[];
}

/** `WS:LOCAL`, split at the last `:` (a workspace id may hold one, a local name never does). */
export function toolInWorkspace(flag: string, raw: string): ToolInWorkspace {
  const at = raw.lastIndexOf(':');
  const workspace = raw.slice(0, Math.max(at, 0));
  const local = raw.slice(at + 1);
  if (at <= 0 || local === '')
    throw new UsageError(`${flag} takes WORKSPACE:TOOL (the tool's local name; * as the workspace for every one), got ${JSON.stringify(raw)}`);
  return { workspace, local };
}

/** The edits the `plugin scope` options ask for; a usage error for flags that contradict each other. */
export function scopeEditsOf(options: Record<string, unknown>): ScopeEdits | null {
  const list = (value: unknown) => (Array.isArray(value) ? (value as string[]) : []);
  const disable = list(options.disableTool).map((raw) => toolInWorkspace('--disable-tool', raw));
  const enable = list(options.enableTool).map((raw) => toolInWorkspace('--enable-tool', raw));
  const given = typeof options.workspaces === 'string';
  if (given && options.allWorkspaces === true) throw new UsageError('give --workspaces or --all-workspaces, not both');
  const both = disable.find((d) => enable.some((e) => e.workspace === d.workspace && e.local === d.local));
  if (both) throw new UsageError(`${both.workspace}:${both.local} is both disabled and enabled`);
  let workspaces: ScopeEdits['workspaces'];
  if (options.allWorkspaces === true) workspaces = '*';
  if (given) {
    workspaces = (options.workspaces as string)
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
  }
  if (workspaces === undefined && disable.length === 0 && enable.length === 0) return null;
  return { workspaces, disable, enable };
}

/** The scope with the edits made; the backend normalises (and checks) what it is sent. */
export function editedScope(scope: PluginScope, edits: ScopeEdits): PluginScope {
  const disabled: Record<string, string[]> = {};
  for (const [workspace, names] of Object.entries(scope.disabled_tools)) disabled[workspace] = [...names];
  for (const { workspace, local } of edits.disable) (disabled[workspace] ??= []).push(local);
  for (const { workspace, local } of edits.enable) {
    if (disabled[workspace]) disabled[workspace] = disabled[workspace].filter((name) => name !== local);
  }
  return { workspaces: edits.workspaces ?? scope.workspaces, disabled_tools: disabled };
}

export function describeScope(pluginId: string, scope: PluginScope): string {
  const where =
    scope.workspaces === '*'
      ? 'every workspace'
      : scope.workspaces.length === 0
        ? 'no workspace'
        : `workspace${scope.workspaces.length === 1 ? '' : 's'} ${scope.workspaces.join(', ')}`;
  const disabled = Object.entries(scope.disabled_tools);
  const lines = [`${pluginId} serves ${where}`];
  if (disabled.length === 0) lines.push('Disabled tools: none');
  else lines.push('Disabled tools:', ...disabled.map(([workspace, names]) => `  ${workspace}: ${names.join(', ')}`));
  return `${lines.join('\n')}\n`;
}

function describeProfile(profile: Profile): string {
  const list = (patterns: string[]) => (patterns.length === 0 ? 'none' : patterns.join(', '));
  return `${profile.name}\n  include: ${list(profile.include)}\n  exclude: ${list(profile.exclude)}\n`;
}

/**
 * `toolport plugin scope` and `toolport profile …` (docs/cli.md). `plugin scope` with flags
 * reads the scope, makes the edits and sends the whole scope back (PUT replaces it).
 */
export function scopeCommands(io: CliIo): Pick<CommandHandlers, 'plugin.scope' | 'profile.set' | 'profile.list' | 'profile.get' | 'profile.delete'> {
  const named = (input: CommandInput) => ({ name: input.args[0]! });
  return {
    'plugin.scope': async (input) => {
      const params = { id: input.args[0]! };
      const edits = scopeEditsOf(input.options);
      return runApiWork(
        io,
        input,
        async (client): Promise<ApiAnswer<PluginScope>> => {
          const current = await client.call('GET /api/v1/plugins/:id/scope', { params });
          if (!current.ok || edits === null) return current;
          return client.call('PUT /api/v1/plugins/:id/scope', { params, body: editedScope(current.body, edits) });
        },
        (scope) => describeScope(params.id, scope),
      );
    },
    'profile.set': (input) =>
      runApiCommand(io, input, {
        route: 'PUT /api/v1/profiles/:name',
        params: named(input),
        body: { include: input.options.include, exclude: input.options.exclude ?? [] },
        render: describeProfile,
      }),
    'profile.list': (input) =>
      runApiCommand(io, input, {
        route: 'GET /api/v1/profiles',
        render: (profiles) =>
          formatTable(
            ['NAME', 'INCLUDE', 'EXCLUDE'],
            profiles.map((p) => [p.name, p.include.join(','), p.exclude.join(',')]),
          ),
      }),
    'profile.get': (input) => runApiCommand(io, input, { route: 'GET /api/v1/profiles/:name', params: named(input), render: describeProfile }),
    'profile.delete': (input) =>
      runApiCommand(io, input, { route: 'DELETE /api/v1/profiles/:name', params: named(input), render: () => `Deleted profile ${input.args[0]}\n` }),
  };
}
