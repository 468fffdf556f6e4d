import { resolve } from 'node:path';
import type { PluginRecord } from '../../../api';
import { readManifestId } from '../manifest-id';
import { formatTable } from '../table';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { runApiCommand } from './api-command';

/** Written elsewhere: the author's commands (init, validate, info). */
type AuthorCommand = 'plugin.init' | 'plugin.validate' | 'plugin.info';

function describeInstalled(verb: string) {
  return (plugin: PluginRecord): string => {
    const tools = plugin.tools.length > 0 ? plugin.tools.map((name) => `  ${name}`).join('\n') : '  (none)';
    const warnings = plugin.warnings.map((w) => `Warning: ${w.path}: ${w.message}\n`).join('');
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
  const id = (input: CommandInput) => ({ id: input.args[0] });
  return {
    'plugin.install': (input) =>
      runApiCommand(io, input, {
        route: 'POST /api/v1/plugins',
        body: packageBody(input),
        render: describeInstalled('Installed'),
        progress: `installing ${input.args[0]}`,
      }),
    'plugin.upgrade': async (input) => {
      const pluginId = await readManifestId(input.args[0]);
      return runApiCommand(io, input, {
        route: 'PUT /api/v1/plugins/:id',
        params: { id: pluginId },
        body: packageBody(input),
        render: describeInstalled('Upgraded'),
        progress: `upgrading ${input.args[0]}`,
      });
    },
    'plugin.enable': (input) =>
      runApiCommand(io, input, {
        route: 'POST /api/v1/plugins/:id/enable',
        params: id(input),
        render: (plugin) => `${plugin.id} is ${plugin.status}\n`,
        progress: `starting ${input.args[0]}`,
      }),
    'plugin.disable': (input) =>
      runApiCommand(io, input, {
        route: 'POST /api/v1/plugins/:id/disable',
        params: id(input),
        render: (plugin) => `${plugin.id} is ${plugin.status}\n`,
      }),
    'plugin.uninstall': (input) =>
      runApiCommand(io, input, { route: 'DELETE /api/v1/plugins/:id', params: id(input), render: () => `Uninstalled ${input.args[0]}\n` }),
    'plugin.list': (input) =>
      runApiCommand(io, input, {
        route: 'GET /api/v1/plugins',
        render: (plugins) => {
          if (plugins.length === 0) return 'No plugins installed.\n';
          return formatTable(
            ['ID', 'VERSION', 'STATUS', 'TOOLS', 'RESTARTS', 'LAST ERROR'],
            plugins.map((p) => [p.id, p.version, p.status, String(p.tools.length), String(p.restart_count), p.last_error ?? '']),
          );
        },
      }),
  };
}
