import { DataDirLockedError } from '../adapters/shared/data-dir-lock';
import { StoreOpenError } from '../adapters/postgres/store-open-error';
import { resolveStoreChoice } from '../adapters/cli/store-option';
import { DataDirNotPrivateError } from '../adapters/shared/private-data-dir';
import { EXIT } from '../adapters/cli/exit-codes';
import type { CliIo, CommandHandlers, CommandInput } from '../adapters/cli/program';
import { UsageError } from '../adapters/cli/exit-codes';
import { loadRequireMtls } from '../adapters/cli/settings-loader';
import { loadPluginUids, loadSandboxChoice } from '../adapters/cli/sandbox-options';
import { resolveLogFormat, type LogFormat } from '../adapters/cli/log-format';

import { agentctlCommand, port } from './agentctl-command';
import { untilSignal } from './until-signal';

// serve and demo pull in SQLite, gRPC, express and the MCP SDK (about 2 s of require on a
// busy machine); they are loaded only when one of them runs, so the API commands
// (`plugin list`, `catalog`, …) start quickly. agentctl's command loads its own likewise.
const loadServe = () => import('./serve');
const loadDemo = () => import('./demo');

/** A count flag of `serve` (docs/operations.md §1): a whole number of at least 1. */
function count(raw: unknown, flag: string): number {
  const text = String(raw);
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 1_000_000)
    throw new UsageError(`${flag}: expected a whole number 1-1000000, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `--tls-cert` and `--tls-key` go together. */
function tlsFiles(options: Record<string, unknown>): { certFile: string; keyFile: string } | undefined {
  const { tlsCert, tlsKey } = options as { tlsCert?: string; tlsKey?: string };
  if (tlsCert === undefined && tlsKey === undefined) return undefined;
  if (tlsCert === undefined || tlsKey === undefined) throw new UsageError('--tls-cert and --tls-key go together: give both or neither');
  return { certFile: tlsCert, keyFile: tlsKey };
}

/** `--log-format`, else TOOLPORT_LOG_FORMAT, else pretty when stderr is a terminal. */
function logFormat(input: CommandInput, io: CliIo): LogFormat {
  return resolveLogFormat(input.options.logFormat, io.env, io.stderrIsTerminal === true);
}

function logLevelAsked(input: CommandInput, io: CliIo): boolean {
  return typeof input.options.logLevel === 'string' || (io.env.TOOLPORT_LOG_LEVEL ?? '') !== '';
}

/**
 * Starts a backend-owning command, waits for SIGINT/SIGTERM and closes it. docs/cli.md: exit
 * 0 within 10 s of the signal, even if a plugin will not stop; a held data dir, or one another
 * user owns, exits 1. The
 * signal is listened for before the start, so a Ctrl-C while plugins and agentctls are still
 * starting stops them too instead of killing the process and orphaning them.
 */
async function runUntilSignal(io: CliIo, name: string, start: () => Promise<{ close(): Promise<void> }>): Promise<number> {
  // Everything a backend writes (its store, plugin folders, sockets) is for its own user; the
  // plugins and agentctls it starts inherit the mask too.
  process.umask(0o077);
  const signalled = untilSignal();
  let deadline: NodeJS.Timeout | undefined;
  let interrupted = false;
  void signalled.then(() => {
    interrupted = true;
    deadline = setTimeout(() => process.exit(EXIT.ok), 9500);
  });
  let running;
  try {
    running = await start();
  } catch (error) {
    if (interrupted) {
      // A terminal's Ctrl-C reaches the whole foreground group, so a child that was being
      // spawned (not yet in its own group) may die of it and fail the start; the start has
      // cleaned up after itself, and the operator asked to stop: that is a clean exit.
      clearTimeout(deadline);
      io.stderr(`toolport ${name}: interrupted while starting\n`);
      return EXIT.ok;
    }
    if (error instanceof DataDirLockedError || error instanceof DataDirNotPrivateError || error instanceof StoreOpenError) {
      io.stderr(`toolport ${name}: ${error.message}\n`);
      return EXIT.refused;
    }
    throw error;
  }
  await signalled;
  await running.close();
  clearTimeout(deadline);
  return EXIT.ok;
}

/** The long-running commands: `serve`, `demo` and `agentctl`. */
export function processCommands(io: CliIo): Pick<CommandHandlers, 'serve' | 'demo' | 'agentctl'> {
  return {
    serve: (input: CommandInput) =>
      runUntilSignal(io, 'serve', async () =>
        (await loadServe()).runServe({
          dataDir: input.global.dataDir,
          host: String(input.options.host),
          port: port(input.options.port, '--port'),
          tls: tlsFiles(input.options),
          store: resolveStoreChoice(input.options.store, io.env),
          settings: input.settings,
          env: io.env,
          pluginRequireMtls: loadRequireMtls(input.options, io.env),
          pluginSandbox: loadSandboxChoice(input.options.pluginSandbox, io.env),
          pluginUids: loadPluginUids(input.options.pluginUids, io.env),
          logFormat: logFormat(input, io),
          connectionLimits: {
            authenticated: count(input.options.maxConnections, '--max-connections'),
            unauthenticated: count(input.options.maxUnauthenticated, '--max-unauthenticated'),
            unauthenticatedPerPeer: count(input.options.maxUnauthenticatedPerPeer, '--max-unauthenticated-per-peer'),
          },
        }),
      ),
    demo: (input: CommandInput) =>
      runUntilSignal(io, 'demo', async () =>
        (await loadDemo()).runDemo({
          dataDir: input.global.dataDir,
          // The terminal is for the lifecycle lines: the backend's own records there are warnings
          // and errors only, unless a log level was asked for.
          settings: logLevelAsked(input, io) ? input.settings : { ...input.settings, logLevel: 'warn' },
          env: io.env,
          print: (line) => io.stdout(`${line}\n`),
          logFormat: logFormat(input, io),
        }),
      ),
    agentctl: agentctlCommand(io),
  };
}
