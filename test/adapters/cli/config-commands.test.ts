import { readAssignments, readKeys, stdinValue } from '../../../src/adapters/cli/commands/config-commands';
import { UsageError } from '../../../src/adapters/cli/exit-codes';
import { COMMAND_IDS, runCli, type CommandHandlers, type CommandInput } from '../../../src/adapters/cli/program';

function handlersCapturing(seen: Array<{ id: string; input: CommandInput }>): CommandHandlers {
  return Object.fromEntries(COMMAND_IDS.map((id) => [id, async (input: CommandInput) => (seen.push({ id, input }), 0)])) as CommandHandlers;
}

const io = { env: {}, stdout: () => undefined, stderr: () => undefined };

describe('toolport plugin config', () => {
  it('routes get and set with the plugin id, the assignments and the global options at any level', async () => {
    const seen: Array<{ id: string; input: CommandInput }> = [];
    expect(await runCli(['plugin', 'config', 'get', 'acme.tracker', '--json'], handlersCapturing(seen), io)).toBe(0);
    expect(await runCli(['plugin', '--json', 'config', 'set', 'acme.tracker', 'a=1', 'token=-'], handlersCapturing(seen), io)).toBe(0);
    expect(await runCli(['plugin', 'config', '--url', 'http://x', 'get', 'p'], handlersCapturing(seen), io)).toBe(0);
    expect(seen.map((s) => s.id)).toEqual(['plugin.config.get', 'plugin.config.set', 'plugin.config.get']);
    expect(seen[0]!.input.args).toEqual(['acme.tracker']);
    expect(seen[0]!.input.global.json).toBe(true);
    expect(seen[1]!.input.args).toEqual(['acme.tracker', 'a=1', 'token=-']);
    expect(seen[1]!.input.global.json).toBe(true);
    expect(seen[2]!.input.global.url).toBe('http://x');
  });

  it('routes unset with the plugin id, the keys and --workspace', async () => {
    const seen: Array<{ id: string; input: CommandInput }> = [];
    expect(await runCli(['plugin', 'config', 'unset', 'acme.tracker', 'project', 'api_token', '--workspace', 'ws-1'], handlersCapturing(seen), io)).toBe(0);
    expect(seen.map((s) => s.id)).toEqual(['plugin.config.unset']);
    expect(seen[0]!.input.args).toEqual(['acme.tracker', 'project', 'api_token']);
    expect(seen[0]!.input.options.workspace).toBe('ws-1');
    expect(await runCli(['plugin', 'config', 'unset', 'acme.tracker'], handlersCapturing([]), io)).toBe(2);
  });

  it('reads unset keys: names only, each once, at least one', () => {
    expect(readKeys(['project', 'api_token'])).toEqual(['project', 'api_token']);
    expect(() => readKeys([])).toThrow(UsageError);
    expect(() => readKeys(['project=x'])).toThrow(/KEY names only/);
    expect(() => readKeys(['project=s3cret'])).not.toThrow(/s3cret/);
    expect(() => readKeys(['a', 'a'])).toThrow(/given twice/);
  });

  it('needs at least one assignment (usage, exit 2)', async () => {
    expect(await runCli(['plugin', 'config', 'set', 'acme.tracker'], handlersCapturing([]), io)).toBe(2);
  });

  it('reads KEY=VALUE, KEY=- for stdin, values holding "=" kept whole', () => {
    expect(readAssignments(['url=https://x/?a=b', 'token=-', 'empty='])).toEqual([
      { key: 'url', raw: 'https://x/?a=b' },
      { key: 'token', raw: null },
      { key: 'empty', raw: '' },
    ]);
  });

  it('refuses a malformed assignment, a key given twice and two readers of stdin as usage errors, never echoing a value', () => {
    expect(() => readAssignments(['no-equals-s3cret'])).toThrow(UsageError);
    expect(() => readAssignments(['no-equals-s3cret'])).not.toThrow(/s3cret/);
    expect(() => readAssignments(['=value'])).toThrow(UsageError);
    expect(() => readAssignments(['a=1', 'a=2'])).toThrow(/given twice/);
    expect(() => readAssignments(['a=-', 'b=-'])).toThrow(/only one KEY=-/);
    expect(() => readAssignments([])).toThrow(UsageError);
  });

  it('drops exactly one trailing newline from stdin', () => {
    expect(stdinValue('secret\n')).toBe('secret');
    expect(stdinValue('secret\r\n')).toBe('secret');
    expect(stdinValue('secret\n\n')).toBe('secret\n');
    expect(stdinValue('secret')).toBe('secret');
    expect(stdinValue(' spaced ')).toBe(' spaced ');
  });
});
