import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMAND_IDS, runCli, type CommandHandlers, type CommandInput } from '../../../src/adapters/cli/program';

/** Every command's handler: the given ones, and for the rest one that fails the test if it runs. */
function handlersWith(some: Partial<CommandHandlers>): CommandHandlers {
  const unexpected = (id: string) => async (): Promise<number> => {
    throw new Error(`unexpected command ${id}`);
  };
  return Object.fromEntries(COMMAND_IDS.map((id) => [id, some[id] ?? unexpected(id)])) as CommandHandlers;
}

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { env, stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) }, out, err };
}

describe('toolport CLI frame', () => {
  it('lists the command groups of the contract in --help', async () => {
    const { io: cli, out } = io();
    expect(await runCli(['--help'], handlersWith({}), cli)).toBe(0);
    const help = out.join('');
    for (const group of ['serve', 'plugin', 'catalog', 'session', 'agentctl', 'demo']) expect(help).toContain(group);
  });

  it('prints the package version', async () => {
    const { io: cli, out } = io();
    expect(await runCli(['--version'], handlersWith({}), cli)).toBe(0);
    expect(out.join('')).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 on an unknown command or a missing required option', async () => {
    expect(await runCli(['bogus'], handlersWith({}), io().io)).toBe(2);
    expect(await runCli(['session', 'start', '--task', 't'], handlersWith({ 'session.start': async () => 0 }), io().io)).toBe(2);
  });

  it('passes arguments, global options and settings to the handler and returns its exit code', async () => {
    let seen: CommandInput | undefined;
    const handlers = handlersWith({
      'plugin.install': async (input) => {
        seen = input;
        return 1;
      },
    });
    const cli = { ...io({ XDG_STATE_HOME: '/var/state' }).io, cwd: '/' };
    const code = await runCli(['plugin', 'install', './pkg', '--sha256', 'ab', '--json', '--url', 'http://x', '--token', 't'], handlers, cli);
    expect(code).toBe(1);
    expect(seen?.args).toEqual(['./pkg']);
    expect(seen?.options.sha256).toBe('ab');
    expect(seen?.global).toEqual({ json: true, dataDir: '/var/state/toolport', dataDirGiven: false, dataDirSource: 'default', url: 'http://x', token: 't' });
  });

  it('finds the data dir without --data-dir: TOOLPORT_DATA_DIR counts as given, a .toolport above the current folder is found', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolport-program-'));
    try {
      mkdirSync(join(root, '.toolport'));
      mkdirSync(join(root, 'sub', 'plugin'), { recursive: true });
      const seen: CommandInput[] = [];
      const handlers = handlersWith({
        'plugin.list': async (input) => {
          seen.push(input);
          return 0;
        },
      });
      await runCli(['plugin', 'list'], handlers, { ...io().io, cwd: join(root, 'sub', 'plugin') });
      await runCli(['plugin', 'list'], handlers, { ...io({ TOOLPORT_DATA_DIR: join(root, 'named') }).io, cwd: join(root, 'sub') });
      await runCli(['plugin', '--data-dir', 'mine', 'list'], handlers, { ...io().io, cwd: root });
      expect(seen.map((input) => [input.global.dataDir, input.global.dataDirSource, input.global.dataDirGiven])).toEqual([
        [join(root, '.toolport'), 'found', false],
        [join(root, 'named'), 'env', true],
        [join(root, 'mine'), 'flag', true],
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('resolves settings from flags and the environment for serve', async () => {
    let seen: CommandInput | undefined;
    const handlers = handlersWith({
      serve: async (input) => {
        seen = input;
        return 0;
      },
    });
    const { io: cli } = io({ TOOLPORT_TOOL_PREFIX: 'envp' });
    expect(await runCli(['serve', '--port', '0', '--tool-timeout-ms', '900'], handlers, cli)).toBe(0);
    expect(seen?.settings.toolTimeoutMs).toBe(900);
    expect(seen?.settings.toolPrefix).toBe('envp');
    expect(seen?.options.port).toBe('0');
  });

  it.each([
    [['serve', '--tool-timeout-ms', 'abc'], '--tool-timeout-ms'],
    [['agentctl', '--backend-url', 'http://x', '--tool-prefix', 'Bad-Prefix'], '--tool-prefix'],
  ])('exits 2 naming the setting for %j', async (argv, name) => {
    const { io: cli, err } = io();
    expect(await runCli(argv, handlersWith({ serve: async () => 0, agentctl: async () => 0 }), cli)).toBe(2);
    expect(err.join('')).toContain(name);
  });
});
