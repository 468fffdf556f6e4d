import { Command, CommanderError, Option } from 'commander';
import type { Settings } from '../../application/settings';
import { EXIT, UsageError } from './exit-codes';
import { loadSettings, REQUIRE_MTLS_ENV, REQUIRE_MTLS_FLAG, SETTING_SPECS } from './settings-loader';
import { DEFAULT_PLUGIN_UIDS, SANDBOX_ENV, SANDBOX_FLAG, UIDS_ENV, UIDS_FLAG } from './sandbox-options';
import { readPackageVersion } from './package-version';
import { pluginLogsCommand } from './logs/logs-options';
import { LOG_FORMAT_ENV, LOG_FORMAT_FLAG } from './log-format';
import { discoverDataDir, type DataDirSource } from './data-dir-discovery';

/** Options every subcommand accepts (docs/cli.md). */
export interface GlobalOptions {
  json: boolean;
  /** The data dir, absolute: `--data-dir`, else found (docs/cli.md, "Finding the data dir"). */
  dataDir: string;
  /** True when `--data-dir` or `TOOLPORT_DATA_DIR` named it (agentctl then re-reads backend.json on reconnect). */
  dataDirGiven: boolean;
  /** How the data dir was chosen, for hints that fit. */
  dataDirSource: DataDirSource;
  url?: string;
  token?: string;
  /** A CA file to trust for a backend on https (else TOOLPORT_CA). */
  ca?: string;
}

export interface CommandInput {
  args: string[];
  /** The subcommand's own options, camel-cased (`--mcp-port` → `mcpPort`). */
  options: Record<string, unknown>;
  global: GlobalOptions;
  /** Resolved settings, for the commands that take them (serve, agentctl, demo). */
  settings: Settings;
}

export const COMMAND_IDS = [
  'serve',
  'plugin.install',
  'plugin.upgrade',
  'plugin.enable',
  'plugin.disable',
  'plugin.uninstall',
  'plugin.list',
  'plugin.logs',
  'plugin.config.get',
  'plugin.config.set',
  'plugin.config.unset',
  'plugin.init',
  'plugin.validate',
  'plugin.info',
  'plugin.scope',
  'plugin.tools.accept',
  'profile.set',
  'profile.list',
  'profile.get',
  'profile.delete',
  'approval.rules',
  'approval.list',
  'approval.approve',
  'approval.deny',
  'tool.call',
  'status',
  'catalog',
  'session.start',
  'session.list',
  'session.stop',
  'session.prune',
  'client.config',
  'agentctl',
  'demo',
] as const;
export type CommandId = (typeof COMMAND_IDS)[number];

/** What each command does: every command has its handler, returning the exit code. */
export type CommandHandlers = Record<CommandId, (input: CommandInput) => Promise<number>>;

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stderr is a terminal (log format and progress default to a person's). */
  stderrIsTerminal?: boolean;
  /** Standard input read to its end (`config set KEY=-`); absent where there is none. */
  readStdin?: () => Promise<string>;
  /** The folder the data dir is looked for from (else the process's current folder). */
  cwd?: string;
}

function withGlobalOptions(command: Command): Command {
  return command
    .option('--json', 'print exactly the API answer as JSON')
    .option('--data-dir <dir>', 'Toolport data directory (else TOOLPORT_DATA_DIR, else the nearest .toolport/ here or above, else ~/.local/state/toolport)')
    .option('--url <url>', 'backend URL (else TOOLPORT_URL, else <data-dir>/backend.json)')
    .option('--token <token>', 'admin token (else TOOLPORT_ADMIN_TOKEN, else <data-dir>/admin.token)')
    .option('--ca <file>', 'trust this CA for a backend on https (else TOOLPORT_CA)');
}

/** The same options on a command group (`plugin`, `session`), so `toolport plugin --json list` works too; no defaults here. */
function withGroupGlobalOptions(command: Command): Command {
  return command
    .option('--json', 'print exactly the API answer as JSON')
    .option('--data-dir <dir>', 'Toolport data directory')
    .option('--url <url>', 'backend URL')
    .option('--token <token>', 'admin token')
    .option('--ca <file>', 'CA to trust for a backend on https');
}

/**
 * A global option's value for a leaf: its own when given on the command line, else the one
 * its group received (commander lets the group take its known options wherever they appear),
 * else the leaf's default.
 */
function globalValue(self: Command, key: string): { value: unknown; given: boolean } {
  const own = self.opts<Record<string, unknown>>()[key];
  if (self.getOptionValueSource(key) === 'cli') return { value: own, given: true };
  // Nearest group first (`plugin config --json get` and `plugin --json config get` both work); never the root.
  for (let group = self.parent; group?.parent; group = group.parent) {
    const value = group.opts<Record<string, unknown>>()[key];
    if (value !== undefined) return { value, given: true };
  }
  return { value: own, given: false };
}

/** The `plugin tools` group (an MCP server's pinned tools). */
function toolsGroup(plugin: Command): Command {
  const existing = plugin.commands.find((command) => command.name() === 'tools');
  return existing ?? withGroupGlobalOptions(plugin.command('tools').description("an MCP server plugin's pinned tools"));
}

/** The `plugin config` group, made once for its leaves. */
function configGroup(plugin: Command): Command {
  const existing = plugin.commands.find((command) => command.name() === 'config');
  return existing ?? withGroupGlobalOptions(plugin.command('config').description("read and set a plugin's configuration (secrets shown masked)"));
}

function withSettings(command: Command): Command {
  for (const spec of SETTING_SPECS) {
    command.addOption(new Option(`${spec.flag} <value>`, `setting (env ${spec.env})`));
  }
  return command.addOption(new Option(`${LOG_FORMAT_FLAG} <format>`, `pretty | json (env ${LOG_FORMAT_ENV}; pretty on a terminal, else json)`));
}

interface Leaf {
  id: CommandId;
  build(parent: Command): Command;
  settings?: boolean;
}

/** The plugin author's loop (issue 18): init, validate, info, tool call, status. */
const AUTHOR_LEAVES: Leaf[] = [
  {
    id: 'plugin.init',
    build: (g) =>
      g
        .command('init <dir>')
        .description('write a plugin project with one tool, hello, into a new or empty folder')
        .option('--lang <lang>', 'ts | python', 'ts')
        .option('--id <id>', 'plugin id (default: the folder name)'),
  },
  {
    id: 'plugin.validate',
    build: (g) =>
      g
        .command('validate <package>')
        .description('check a package (folder, .tgz or .mcpb) as install would, without a backend')
        .option(...BUNDLE_ID_OPTION)
        .option(...GRANT_OPTION)
        .option(...GRANT_ALL_OPTION),
  },
  { id: 'plugin.info', build: (g) => g.command('info <id>').description("a plugin's status, process, configuration and tools with their schemas") },
  {
    id: 'tool.call',
    build: (g) =>
      g
        .command('call <exposed-name>')
        .description('call a tool as an agent would, through a short-lived session')
        .option('--args <json>', 'the arguments, a JSON object')
        .option('--task <id>', 'task id of the session')
        .option('--workspace <id>', 'workspace id of the session')
        .option('--surface <surface>', 'kanban-task | office-task (default kanban-task)')
        .option('--profile <name>', 'profile of the session (default: default)'),
  },
  { id: 'status', build: (root) => root.command('status').description('backend reachable, its version, plugins by status, live sessions') },
];

/** Each use of a repeatable option adds its value to the list. */
function repeated(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Which workspaces a plugin serves and which tools they turn off; the profiles that narrow sessions (docs/cli.md). */
const SCOPE_LEAVES: Leaf[] = [
  {
    id: 'plugin.scope',
    build: (g) =>
      g
        .command('scope <id>')
        .description("print a plugin's scope, or change it: where it serves and which of its tools a workspace turns off")
        .option('--workspaces <ids>', "serve only these workspaces, comma-separated ('' for none)")
        .option('--all-workspaces', 'serve every workspace')
        .option('--disable-tool <ws:local>', 'turn a tool off in a workspace (* for every one); repeatable', repeated, [])
        .option('--enable-tool <ws:local>', 'turn it back on; repeatable', repeated, []),
  },
  {
    id: 'profile.set',
    build: (g) =>
      g
        .command('set <name>')
        .description('create or replace a profile: the tools it includes, minus those it excludes')
        .requiredOption('--include <pattern>', 'an exposed tool name or plugin id, * for any run of characters; repeatable', repeated)
        .option('--exclude <pattern>', 'a pattern whose tools are left out; repeatable', repeated, []),
  },
  { id: 'profile.list', build: (g) => g.command('list').description('list profiles') },
  { id: 'profile.get', build: (g) => g.command('get <name>').description('print one profile') },
  { id: 'profile.delete', build: (g) => g.command('delete <name>').description('delete a profile no session uses') },
];
/** The approval rules and the operator's decisions on held calls (docs/cli.md). */
const APPROVAL_LEAVES: Leaf[] = [
  {
    id: 'approval.rules',
    build: (g) => g.command('rules <action> [file]').description('print the approval rules (get), or replace them with those in a JSON file (set <file.json>)'),
  },
  { id: 'approval.list', build: (g) => g.command('list').description('list the calls awaiting an approval, oldest first') },
  {
    id: 'approval.approve',
    build: (g) => g.command('approve <id>').description('let a held call proceed').option('--reason <text>', 'why, kept with the decision'),
  },
  {
    id: 'approval.deny',
    build: (g) => g.command('deny <id>').description('refuse a held call: it ends [APPROVAL_DENIED]').option('--reason <text>', 'why: the agent is shown it'),
  },
];
/** `--grant` repeats: each one a permission the package may have (docs/cli.md). */
const GRANT_OPTION = [
  '--grant <permission>',
  'grant a permission the package asks for: network | read_paths | write_paths | env (repeatable)',
  (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
] as const;
const GRANT_ALL_OPTION = ['--grant-all', 'grant every permission the package asks for'] as const;
/** An MCP Bundle's plugin id, instead of the one its name gives (docs/mcp-servers.md). */
const BUNDLE_ID_OPTION = ['--id <id>', "an MCP Bundle's plugin id (default: from its name)"] as const;

/** `toolport agentctl`'s own options; the standalone agentctl file takes the same ones (docs/agentctl.md). */
function agentctlOptions(command: Command): Command {
  return command
    .description('serve MCP for one task session (tokens from TOOLPORT_*_TOKEN)')
    .option('--backend-url <urls>', "backend URL, or replicas' URLs comma-separated (default: TOOLPORT_BACKEND_URL)")
    .option('--stdio', 'serve MCP over stdio instead of HTTP')
    .option('--mcp-host <host>', 'MCP listen address', '127.0.0.1')
    .option('--mcp-port <port>', 'MCP listen port (0 picks a free one)', '0')
    .option('--allowed-origin <origin>', 'an extra Origin accepted on /mcp')
    .option('--no-control-api', 'serve no control API (catalog changes come over the backend link anyway)');
}

const LEAVES: Leaf[] = [
  {
    id: 'serve',
    settings: true,
    build: (root) =>
      root
        .command('serve')
        .description('run the backend: HTTP API, agentctl WebSocket, plugin supervision')
        .option('--host <host>', 'listen address', '127.0.0.1')
        .option('--port <port>', 'listen port (0 picks a free one)', '7800')
        .option('--tls-cert <file>', 'serve https and wss with this certificate chain (PEM; include the issuing CA)')
        .option('--tls-key <file>', 'the private key of --tls-cert (PEM)')
        .option('--store <url>', 'keep the store in PostgreSQL (postgres://…; else TOOLPORT_STORE) instead of SQLite in the data dir')
        .option(REQUIRE_MTLS_FLAG, `refuse plugins that answer without mutual TLS (env ${REQUIRE_MTLS_ENV})`)
        .option(`${SANDBOX_FLAG} <mode>`, `run plugins in bubblewrap: auto, require or off (env ${SANDBOX_ENV}; default auto)`)
        .option(`${UIDS_FLAG} <start-end>`, `a root backend's user ids for plugins, one each (env ${UIDS_ENV}; default ${DEFAULT_PLUGIN_UIDS})`)
        .option('--max-connections <n>', 'authenticated connections held at once (API clients and agentctl links)', '20000')
        .option('--max-unauthenticated <n>', 'connections not yet authenticated, all peers together', '256')
        .option('--max-unauthenticated-per-peer <n>', 'connections not yet authenticated from one address', '64'),
  },
  {
    id: 'plugin.install',
    build: (g) =>
      g
        .command('install <package>')
        .description('install a plugin package: a folder, a .tgz or an MCP Bundle (.mcpb)')
        .option('--sha256 <hash>', 'expected package SHA-256')
        .option(...BUNDLE_ID_OPTION)
        .option('--force', 'also when installed: replace it (the same version too), keeping its data and configuration')
        .option(...GRANT_OPTION)
        .option(...GRANT_ALL_OPTION),
  },
  {
    id: 'plugin.upgrade',
    build: (g) =>
      g
        .command('upgrade <package>')
        .description('upgrade an installed plugin from a folder, a .tgz or an MCP Bundle (.mcpb)')
        .option('--sha256 <hash>', 'expected package SHA-256')
        .option(...BUNDLE_ID_OPTION)
        .option(...GRANT_OPTION)
        .option(...GRANT_ALL_OPTION),
  },
  { id: 'plugin.enable', build: (g) => g.command('enable <id>').description('enable a plugin') },
  { id: 'plugin.disable', build: (g) => g.command('disable <id>').description('disable a plugin') },
  {
    id: 'plugin.tools.accept',
    build: (g) =>
      toolsGroup(g)
        .command('accept <id>')
        .description("pin an MCP server plugin's current tools in place of the pinned ones it drifted from (one list_changed per session)"),
  },
  { id: 'plugin.uninstall', build: (g) => g.command('uninstall <id>').description('uninstall a plugin') },
  { id: 'plugin.list', build: (g) => g.command('list').description('list installed plugins') },
  { id: 'plugin.logs', build: (g) => pluginLogsCommand(g) },
  {
    id: 'plugin.config.get',
    build: (g) =>
      configGroup(g)
        .command('get <id>')
        .description("print a plugin's configuration, secrets masked")
        .option('--workspace <id>', "print that workspace's overrides instead"),
  },
  {
    id: 'plugin.config.set',
    build: (g) =>
      configGroup(g)
        .command('set <id> <assignments...>')
        .description('set configuration keys (KEY=VALUE, typed by config_schema; KEY=- reads the value from stdin), keeping the others')
        .option('--workspace <id>', "set them as that workspace's overrides, keeping its other keys"),
  },
  {
    id: 'plugin.config.unset',
    build: (g) =>
      configGroup(g)
        .command('unset <id> <keys...>')
        .description('remove configuration keys, keeping the others')
        .option('--workspace <id>', "remove them from that workspace's overrides: its calls get the instance values again"),
  },
  ...AUTHOR_LEAVES,
  ...SCOPE_LEAVES,
  ...APPROVAL_LEAVES,
  {
    id: 'catalog',
    build: (root) =>
      root
        .command('catalog')
        .description('print the current catalog snapshot, or with all three of the options the tools one kind of session sees')
        .option('--workspace <id>', "a session's workspace")
        .option('--profile <name>', "a session's profile")
        .option('--surface <surface>', "a session's surface"),
  },
  {
    id: 'session.start',
    build: (g) =>
      g
        .command('start')
        .description('start a task session and its agentctl')
        .requiredOption('--task <id>', 'task id')
        .requiredOption('--workspace <id>', 'workspace id')
        .requiredOption('--surface <surface>', 'kanban-task | office-task | configuration | external')
        .option('--profile <name>', 'the profile narrowing its tools (default: default)')
        .option('--no-launch', 'start no agentctl: print what runs one beside the agent, elsewhere'),
  },
  { id: 'session.list', build: (g) => g.command('list').description('list sessions') },
  { id: 'session.stop', build: (g) => g.command('stop <id>').description('stop a session') },
  {
    id: 'session.prune',
    build: (g) =>
      g
        .command('prune')
        .description('remove stopped sessions')
        .option('--older-than <age>', 'only those stopped longer ago than this: seconds, or a number with s, m, h or d (90s, 30m, 1h, 7d)'),
  },
  {
    id: 'client.config',
    build: (g) =>
      g
        .command('config')
        .description("print (or --write) an MCP client's configuration for one session, with fresh tokens")
        .requiredOption('--client <client>', 'claude-desktop | cursor | vscode | claude-code')
        .option('--session <id>', 'a session started with --no-launch: issues it a new token, revoking the old one')
        .option('--task <id>', 'task id of a new session')
        .option('--workspace <id>', 'workspace id of a new session')
        .option('--surface <surface>', 'surface of a new session (default kanban-task)')
        .option('--transport <transport>', 'stdio (the client starts toolport agentctl) | http (a launched agentctl, bearer header)', 'stdio')
        .option('--name <name>', 'the server name in the client (default toolport)')
        .option('--write', "merge it into the client's file, keeping its other servers")
        .option('--file <path>', 'with --write: this file instead of the client’s user file'),
  },
  { id: 'agentctl', settings: true, build: (root) => agentctlOptions(root.command('agentctl')) },
  { id: 'demo', settings: true, build: (root) => root.command('demo').description('start a backend with the example plugins and one session') },
];

/** Adds the global options (and settings) to a leaf's command and runs `onRun` with its input. */
function wireLeaf(built: Command, leaf: Leaf, io: CliIo, onRun: (id: CommandId, input: CommandInput) => Promise<number>): Command {
  const command = withGlobalOptions(built).exitOverride();
  if (leaf.settings) withSettings(command);
  command.action(async (...received: unknown[]) => {
    const self = received[received.length - 1] as Command;
    const options = self.opts<Record<string, unknown>>();
    const given = globalValue(self, 'dataDir');
    const dataDir = discoverDataDir({ given: given.given ? String(given.value) : undefined, env: io.env, cwd: io.cwd ?? process.cwd() });
    const global: GlobalOptions = {
      json: globalValue(self, 'json').value === true,
      dataDir: dataDir.dir,
      dataDirGiven: dataDir.source === 'flag' || dataDir.source === 'env',
      dataDirSource: dataDir.source,
      url: globalValue(self, 'url').value as string | undefined,
      token: globalValue(self, 'token').value as string | undefined,
      ca: globalValue(self, 'ca').value as string | undefined,
    };
    const settings = loadSettings(leaf.settings ? options : {}, leaf.settings ? io.env : {});
    await onRun(leaf.id, { args: self.args, options, global, settings });
  });
  return command;
}

/** Builds the `toolport` command tree; `onRun` receives the chosen command. */
function buildProgram(io: CliIo, onRun: (id: CommandId, input: CommandInput) => Promise<number>): Command {
  const root = new Command('toolport')
    .description('Toolport: plugins give AI agents tools through one MCP server per task session')
    .version(readPackageVersion(), '-V, --version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .showHelpAfterError();
  const groups = new Map<string, Command>([
    ['plugin', root.command('plugin').description('install, upgrade, enable, disable, uninstall and list plugins')],
    ['session', root.command('session').description('start, list, stop and prune task sessions')],
    ['profile', root.command('profile').description('set, list, read and delete the profiles that narrow what sessions see')],
    ['approval', root.command('approval').description('set the approval rules; list, approve and deny the calls they hold')],
    ['tool', root.command('tool').description('call tools as an agent would')],
    ['client', root.command('client').description('configure MCP clients (Claude Desktop, Cursor, VS Code, Claude Code)')],
  ]);
  for (const group of groups.values()) withGroupGlobalOptions(group).configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).exitOverride();

  for (const leaf of LEAVES) {
    const [groupName] = leaf.id.split('.');
    const parent = leaf.id.includes('.') ? groups.get(groupName)! : root;
    wireLeaf(leaf.build(parent), leaf, io, onRun);
  }
  return root;
}

/** Runs the CLI and returns its exit code (docs/cli.md: 0 ok, 1 refused, 2 usage, 3 unreachable). */
export async function runCli(argv: string[], handlers: CommandHandlers, io: CliIo): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, async (id, input) => {
    code = await handlers[id](input);
    return code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    return failureCode(error, io, 'toolport');
  }
  return code;
}

/**
 * The standalone agentctl's command line (docs/agentctl.md): `agentctl <options>`, the very
 * options, settings and exit codes of `toolport agentctl`, with no other command beside it.
 */
export async function runAgentctlCli(argv: string[], handler: CommandHandlers['agentctl'], io: CliIo, version: string): Promise<number> {
  let code: number = EXIT.ok;
  const root = agentctlOptions(new Command('agentctl'))
    .version(version, '-V, --version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();
  wireLeaf(root, { id: 'agentctl', settings: true, build: () => root }, io, async (_id, input) => (code = await handler(input)));
  try {
    await root.parseAsync(argv, { from: 'user' });
  } catch (error) {
    return failureCode(error, io, 'agentctl');
  }
  return code;
}

/** The exit code of a command that threw, its message written first when commander has not. */
function failureCode(error: unknown, io: CliIo, name: string): number {
  if (error instanceof UsageError) {
    io.stderr(`${name}: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof CommanderError) {
    const benign = ['commander.helpDisplayed', 'commander.version', 'commander.help'];
    if (benign.includes(error.code)) return EXIT.ok;
    // commander prints the message itself; a missing subcommand shows help and is usage too.
    return EXIT.usage;
  }
  // An expected failure of an adapter that knows its exit code (a CA file it cannot read…).
  const exitCode = (error as { exitCode?: unknown } | null)?.exitCode;
  if (error instanceof Error && typeof exitCode === 'number') {
    io.stderr(`${name}: ${error.message}\n`);
    return exitCode;
  }
  throw error;
}
