import 'reflect-metadata';
import { runCli, type CommandHandlers } from '../adapters/cli/program';

/**
 * The commands built so far. Each handler wires its process role's container; commands not
 * listed here answer "not built yet" with exit code 2.
 */
export function commandHandlers(): CommandHandlers {
  return {};
}

/** Entry point of `bin/toolport`. */
export async function main(argv: string[]): Promise<void> {
  const code = await runCli(argv, commandHandlers(), {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  process.exitCode = code;
}
