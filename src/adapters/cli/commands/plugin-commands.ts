import { resolve } from 'node:path';
import { readManifestId } from '../manifest-id';
import { formatTable } from '../table';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { runApiCommand } from './api-command';

/** Written elsewhere: the author's commands (init, validate, info). */
type AuthorCommand = 'plugin.init' | 'plugin.validate' | 'plugin.info';

interface PluginView {
  id: string;
  version: string;
  status: string;
  tools: string[];
  package_sha256: string;
  last_error: string | null;
  restart_count: number;
  warnings?: Array<{ path: string; message: string }>;
}

function describeInstalled(verb: string) {
  return (body: unknown): string => {
    const plugin = body as PluginView;
    const tools = plugin.tools.length > 0 ? plugin.tools.map((name) => `  ${name}`).join('\n') : '  (none)';
    const warnings = (plugin.warnings ?? []).map((w) => `Warning: ${w.path}: ${w.message}\n`).join('');
    return `${verb} ${plugin.id} ${plugin.version} (${plugin.status})\nSHA-256: ${plugin.package_sha256}\nTools:\n${tools}\n${warnings}`;
  };
}

function packageBody(input: CommandInput): Record<string, unknown> {
  const body: Record<string, unknown> = { path: resolve(input.args[0]) };
  if (typeof input.options.sha256 === 'string') body.sha256 = input.options.sha256;
  if (input.options.force === true) body.force = true;
  return body;
}

/** `toolport plugin …` against the §9 HTTP API. */
export function pluginCommands(
  io: CliIo,
): Pick<CommandHandlers, Exclude<`plugin.${string}` & keyof CommandHandlers, `plugin.config.${string}` | AuthorCommand | 'plugin.logs'>> {
  const id = (input: CommandInput) => encodeURIComponent(input.args[0]);
  return {
    'plugin.install': (input) =>
      runApiCommand(io, input, {
        method: 'POST',
        path: '/api/v1/plugins',
        body: packageBody(input),
        render: describeInstalled('Installed'),
        progress: `installing ${input.args[0]}`,
      }),
    'plugin.upgrade': async (input) => {
      const pluginId = encodeURIComponent(await readManifestId(input.args[0]));
      return runApiCommand(io, input, {
        method: 'PUT',
        path: `/api/v1/plugins/${pluginId}`,
        body: packageBody(input),
        render: describeInstalled('Upgraded'),
        progress: `upgrading ${input.args[0]}`,
      });
    },
    'plugin.enable': (input) =>
      runApiCommand(io, input, {
        method: 'POST',
        path: `/api/v1/plugins/${id(input)}/enable`,
        render: (body) => `${(body as PluginView).id} is ${(body as PluginView).status}\n`,
        progress: `starting ${input.args[0]}`,
      }),
    'plugin.disable': (input) =>
      runApiCommand(io, input, {
        method: 'POST',
        path: `/api/v1/plugins/${id(input)}/disable`,
        render: (body) => `${(body as PluginView).id} is ${(body as PluginView).status}\n`,
      }),
    'plugin.uninstall': (input) =>
      runApiCommand(io, input, { method: 'DELETE', path: `/api/v1/plugins/${id(input)}`, render: () => `Uninstalled ${input.args[0]}\n` }),
    'plugin.list': (input) =>
      runApiCommand(io, input, {
        method: 'GET',
        path: '/api/v1/plugins',
        render: (body) => {
          const plugins = body as PluginView[];
          if (plugins.length === 0) return 'No plugins installed.\n';
          return formatTable(
            ['ID', 'VERSION', 'STATUS', 'TOOLS', 'RESTARTS', 'LAST ERROR'],
            plugins.map((p) => [p.id, p.version, p.status, String(p.tools.length), String(p.restart_count), p.last_error ?? '']),
          );
        },
      }),
  };
}
