import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import { runAgentctlCli } from '../adapters/cli/program';
import { agentctlVersion } from './agentctl-launch';
import { agentctlCommand } from './agentctl-command';

/**
 * Entry point of the standalone agentctl, `dist/agentctl.js` (docs/agentctl.md, "An agentctl
 * in the agent's container"): `node agentctl.js <options>`, the options of `toolport agentctl`.
 * It reaches only the agentctl's own pieces (the MCP servers, the backend link, the schema
 * checks, pino): nothing of the backend, its stores or the OpenTelemetry SDK, which is loaded
 * only when an OTLP endpoint is configured.
 */
export async function agentctlMain(argv: string[]): Promise<number> {
  const io = {
    env: process.env,
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
    stderrIsTerminal: process.stderr.isTTY === true,
  };
  return runAgentctlCli(argv, agentctlCommand(io), io, agentctlVersion());
}

/**
 * The standalone file is started by a container's command line, without the flag the backend
 * launches agentctls with (`--max-semi-space-size=1`, bench/PROFILE.md), so it tunes V8 itself
 * before anything is allocated: the young generation does not grow, the heap is sized for
 * memory rather than speed, and no function is compiled by the optimizing compiler (whose
 * code and compile memory an agentctl, waiting on its agent and its link, gains little from).
 * Measured (bench/PROFILE.md §7): idle 81 → 70 MB, after 1,000 calls 131 → 75 MB, CPU per
 * call unchanged within the machine's noise.
 */
function preferSmallHeap(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--no-opt');
}

if (require.main === module) {
  preferSmallHeap();
  agentctlMain(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A failure nobody foresaw: its message, never a stack trace (TOOLPORT_LOG_LEVEL=debug shows that).
      const debug = process.env.TOOLPORT_LOG_LEVEL === 'debug' && error instanceof Error;
      process.stderr.write(`agentctl: ${debug ? error.stack : error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
