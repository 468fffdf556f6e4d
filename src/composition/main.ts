import 'reflect-metadata';
import { clientConfigCommand } from '../adapters/cli/commands/client-config-command';
import { configCommands } from '../adapters/cli/commands/config-commands';
import { initCommand } from '../adapters/cli/commands/init-command';
import { inspectCommands } from '../adapters/cli/commands/inspect-commands';
import { pluginCommands } from '../adapters/cli/commands/plugin-commands';
import { approvalCommands } from '../adapters/cli/commands/approval-commands';
import { scopeCommands } from '../adapters/cli/commands/scope-commands';
import { logsCommand } from '../adapters/cli/commands/logs-command';
import { sessionCommands } from '../adapters/cli/commands/session-commands';
import { terminalSafe } from '../adapters/cli/terminal-safe';
import { runCli, type CliIo, type CommandHandlers } from '../adapters/cli/program';
import { processCommands } from './process-commands';

/** Every command's handler; each wires its process role. */
function commandHandlers(io: CliIo): CommandHandlers {
  // What these print comes from packages and plugins: control characters are escaped.
  const shown = terminalSafe(io);
  return {
    ...pluginCommands(io),
    ...logsCommand(shown),
    ...configCommands(io),
    ...sessionCommands(io),
    ...processCommands(io),
    ...inspectCommands(io),
    ...scopeCommands(shown),
    ...approvalCommands(shown),
    'plugin.info': inspectCommands(shown)['plugin.info'],
    'plugin.init': initCommand(io),
    'client.config': clientConfigCommand(io),
    // Loaded when run: ajv and the package reader, the MCP client and zod take a while to require.
    'plugin.validate': async (input) => (await import('./validate-command')).validateCommand(shown)(input),
    'tool.call': async (input) => (await import('../adapters/cli/commands/tool-call-command')).toolCallCommand(io)(input),
  };
}

/** Entry point of `bin/toolport`. */
export async function main(argv: string[]): Promise<void> {
  const io: CliIo = {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTerminal: process.stderr.isTTY === true,
    readStdin: readAllStdin,
  };
  process.exitCode = await runCli(argv, commandHandlers(io), io);
}

async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
