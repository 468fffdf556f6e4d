import { UsageError } from '../../../src/adapters/cli/exit-codes';
import { loadPluginUids, loadSandboxChoice } from '../../../src/adapters/cli/sandbox-options';

describe('serve --plugin-sandbox', () => {
  it('sandboxes where it can unless told otherwise, the flag winning over the environment', () => {
    expect(loadSandboxChoice(undefined, {})).toBe('auto');
    expect(loadSandboxChoice(undefined, { TOOLPORT_PLUGIN_SANDBOX: 'require' })).toBe('require');
    expect(loadSandboxChoice('off', { TOOLPORT_PLUGIN_SANDBOX: 'require' })).toBe('off');
  });

  it('refuses any other value as a usage error naming where it came from', () => {
    expect(() => loadSandboxChoice('none', {})).toThrow(UsageError);
    expect(() => loadSandboxChoice('none', {})).toThrow(/--plugin-sandbox: expected auto, require or off, got "none"/);
    expect(() => loadSandboxChoice(undefined, { TOOLPORT_PLUGIN_SANDBOX: 'yes' })).toThrow(/TOOLPORT_PLUGIN_SANDBOX/);
  });
});

describe('serve --plugin-uids', () => {
  it('defaults to 2000000-2099999 and reads START-END', () => {
    expect(loadPluginUids(undefined, {})).toEqual({ start: 2_000_000, end: 2_099_999 });
    expect(loadPluginUids('5000-5009', {})).toEqual({ start: 5000, end: 5009 });
    expect(loadPluginUids(undefined, { TOOLPORT_PLUGIN_UIDS: '7000-7000' })).toEqual({ start: 7000, end: 7000 });
  });

  it.each(['0-10', '10-5', '1-4294967295', 'abc', '5000'])('refuses %s, naming the flag', (raw) => {
    expect(() => loadPluginUids(raw, {})).toThrow(/--plugin-uids: expected START-END/);
  });
});
