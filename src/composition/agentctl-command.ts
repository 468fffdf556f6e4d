import { EXIT, UsageError } from '../adapters/cli/exit-codes';
import { resolveLogFormat } from '../adapters/cli/log-format';
import type { CliIo, CommandInput } from '../adapters/cli/program';
import { untilSignal } from './until-signal';

// agentctl-main pulls in the MCP SDK, ws and ajv: loaded when the command runs, so the
// toolport CLI's other commands start without them.
const loadAgentctl = () => import('./agentctl-main');

export function port(raw: unknown, flag: string): number {
  const text = String(raw);
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new UsageError(`${flag}: expected a port number 0-65535, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `--backend-url`, else TOOLPORT_BACKEND_URL: one URL, or replicas' URLs comma-separated (docs/operations.md §10). */
function backendUrlOf(raw: unknown, env: NodeJS.ProcessEnv): string {
  const value = typeof raw === 'string' && raw.trim() !== '' ? raw : env.TOOLPORT_BACKEND_URL;
  if (value === undefined || value.trim() === '') throw new UsageError('agentctl needs --backend-url or TOOLPORT_BACKEND_URL');
  // Each URL is checked where the agentctl starts (runAgentctl), for every way it is started.
  return value;
}

/**
 * The `agentctl` command, for `toolport agentctl` and the standalone agentctl file alike
 * (docs/agentctl.md): runs one agentctl until SIGINT/SIGTERM or, on stdio, until its client
 * closes stdin, then says goodbye and exits 0.
 */
export function agentctlCommand(io: CliIo): (input: CommandInput) => Promise<number> {
  return async (input) => {
    const mcpPort = port(input.options.mcpPort, '--mcp-port');
    const { runAgentctl } = await loadAgentctl();
    const running = await runAgentctl(
      {
        backendUrl: backendUrlOf(input.options.backendUrl, io.env),
        dataDir: input.global.dataDirGiven ? input.global.dataDir : undefined,
        stdio: input.options.stdio === true,
        mcpHost: String(input.options.mcpHost),
        mcpPort,
        allowedOrigin: input.options.allowedOrigin as string | undefined,
        noControlApi: input.options.controlApi === false,
        ca: input.global.ca,
        env: io.env,
        logFormat: resolveLogFormat(input.options.logFormat, io.env, io.stderrIsTerminal === true),
      },
      input.settings,
    );
    await Promise.race([untilSignal(), running.done]);
    await running.close();
    return EXIT.ok;
  };
}
