import { resolve } from 'node:path';
import { isPermissionName, PERMISSION_NAMES } from '../../../domain/permissions';
import { UsageError } from '../exit-codes';
import { readManifestId } from '../manifest-id';
import { withProgress } from '../progress';
import { formatTable } from '../table';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { runApiCommand, runApiWork } from './api-command';
import { describeInstalled, installWithHint } from './install-answer';

/** Written elsewhere: the author's commands (init, validate, info) and the scope (scope-commands.ts). */
type WrittenElsewhere = 'plugin.init' | 'plugin.validate' | 'plugin.info' | 'plugin.scope';

function packageBody(input: CommandInput): Record<string, unknown> {
  const body: Record<string, unknown> = { path: resolve(input.args[0]) };
  if (typeof input.options.sha256 === 'string') body.sha256 = input.options.sha256;
  if (input.options.force === true) body.force = true;
  if (typeof input.options.id === 'string') body.id = input.options.id;
  const grants = grantsOf(input);
  if (grants.length > 0) body.grants = grants;
  return body;
}

/** `--grant NAME` (repeatable) or `--grant-all`: the permissions granted (docs/cli.md); an unknown name is a usage error. */
export function grantsOf(input: CommandInput): string[] {
  if (input.options.grantAll === true) return [...PERMISSION_NAMES];
  const given = Array.isArray(input.options.grant) ? (input.options.grant as string[]) : [];
  const unknown = given.find((name) => !isPermissionName(name));
  if (unknown !== undefined) throw new UsageError(`--grant: unknown permission "${unknown}" (one of ${PERMISSION_NAMES.join(', ')})`);
  return [...new Set(given)];
}

/** `toolport plugin …` against the §9 HTTP API. */
export function pluginCommands(
  io: CliIo,
): Pick<CommandHandlers, Exclude<`plugin.${string}` & keyof CommandHandlers, `plugin.config.${string}` | WrittenElsewhere | 'plugin.logs'>> {
  const id = (input: CommandInput) => ({ id: input.args[0] });
  return {
    'plugin.install': (input) =>
      runApiWork(
        io,
        input,
        (client) =>
          installWithHint(client, input, () =>
            withProgress(io.stderrIsTerminal === true && !input.global.json, io.stderr, `installing ${input.args[0]}`, () =>
              client.call('POST /api/v1/plugins', { body: packageBody(input) }),
            ),
          ),
        describeInstalled('Installed'),
      ),
    'plugin.upgrade': async (input) => {
      // An MCP Bundle upgrades the plugin --id names, else the one its name gives.
      const pluginId = typeof input.options.id === 'string' ? input.options.id : await readManifestId(input.args[0]);
      return runApiWork(
        io,
        input,
        (client) =>
          installWithHint(client, input, () =>
            withProgress(io.stderrIsTerminal === true && !input.global.json, io.stderr, `upgrading ${input.args[0]}`, () =>
              client.call('PUT /api/v1/plugins/:id', { params: { id: pluginId }, body: packageBody(input) }),
            ),
          ),
        describeInstalled('Upgraded'),
      );
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
    'plugin.tools.accept': (input) =>
      runApiCommand(io, input, {
        route: 'POST /api/v1/plugins/:id/tools/accept',
        params: id(input),
        render: (plugin) => `${plugin.id}: ${plugin.tools.length} tool${plugin.tools.length === 1 ? '' : 's'} pinned, no drift held\n`,
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
