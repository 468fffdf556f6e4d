import { UsageError } from '../../../src/adapters/cli/exit-codes';
import { runAgentctlCli, runCli, COMMAND_IDS, type CommandHandlers, type CommandInput } from '../../../src/adapters/cli/program';

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { env, stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), cwd: '/' }, out, err };
}

const ARGV = [
  '--backend-url',
  'http://127.0.0.1:7800',
  '--stdio',
  '--mcp-host',
  '127.0.0.2',
  '--mcp-port',
  '7',
  '--no-control-api',
  '--tool-timeout-ms',
  '4321',
];

/** docs/agentctl.md §9: the standalone agentctl file takes the options of `toolport agentctl`, nothing else. */
describe('the standalone agentctl command line', () => {
  it('hands its handler exactly what `toolport agentctl` hands it for the same options', async () => {
    let standalone: CommandInput | undefined;
    let toolport: CommandInput | undefined;
    expect(await runAgentctlCli(ARGV, async (input) => ((standalone = input), 5), io().io, '9.9.9')).toBe(5);
    const handlers = Object.fromEntries(COMMAND_IDS.map((id) => [id, async (_input: CommandInput) => 1])) as CommandHandlers;
    handlers.agentctl = async (input) => ((toolport = input), 5);
    expect(await runCli(['agentctl', ...ARGV], handlers, io().io)).toBe(5);
    expect(standalone).toEqual(toolport);
    expect(standalone!.options).toMatchObject({ backendUrl: 'http://127.0.0.1:7800', stdio: true, mcpHost: '127.0.0.2', mcpPort: '7', controlApi: false });
    expect(standalone!.settings.toolTimeoutMs).toBe(4321);
  });

  it('prints the version it was given and its own usage', async () => {
    const version = io();
    expect(await runAgentctlCli(['--version'], async () => 1, version.io, '9.9.9')).toBe(0);
    expect(version.out.join('')).toBe('9.9.9\n');
    const help = io();
    expect(await runAgentctlCli(['--help'], async () => 1, help.io, '9.9.9')).toBe(0);
    expect(help.out.join('')).toMatch(/^Usage: agentctl \[options\]/);
    expect(help.out.join('')).not.toMatch(/Commands:/);
  });

  it('exits 2 on an unknown option, a command word or a bad setting, without running', async () => {
    let ran = false;
    const handler = async () => ((ran = true), 0);
    for (const argv of [['--bogus'], ['serve'], ['--backend-url', 'http://x', '--tool-timeout-ms', 'soon']]) {
      expect(await runAgentctlCli(argv, handler, io().io, '9.9.9')).toBe(2);
    }
    expect(ran).toBe(false);
  });

  it('writes a usage error of its handler as one line naming agentctl, exit 2', async () => {
    const { io: cli, err } = io();
    expect(await runAgentctlCli(ARGV, async () => Promise.reject(new UsageError('TOOLPORT_SESSION_TOKEN is not set')), cli, '9.9.9')).toBe(2);
    expect(err.join('')).toBe('agentctl: TOOLPORT_SESSION_TOKEN is not set\n');
  });
});
