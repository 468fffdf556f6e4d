import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { UsageError } from '../../../src/adapters/cli/exit-codes';
import { loadRequireMtls, loadSettings, optionKey, SETTING_SPECS, settingsToEnv } from '../../../src/adapters/cli/settings-loader';

const GOOD: Record<string, string> = {
  '--tool-prefix': 'acme',
  '--tool-timeout-ms': '1234',
  '--plugin-start-timeout-ms': '2345',
  '--restart-backoff-ms': '50',
  '--health-interval-ms': '700',
  '--plugin-max-inflight': '4',
  '--session-max-inflight': '3',
  '--approval-timeout-ms': '60000',
  '--approval-retention-ms': '3600000',
  '--approval-progress-ms': '100',
  '--session-grace-ms': '1500',
  '--session-retention-ms': '3600000',
  '--session-retention-max': '50',
  '--log-level': 'debug',
};

describe('settings loader', () => {
  it('uses the contract defaults when nothing is given', () => {
    expect(loadSettings({}, {})).toEqual(DEFAULT_SETTINGS);
  });

  it.each(SETTING_SPECS.map((spec) => [spec.flag, spec.env, spec.key] as const))('%s and %s both set the setting', (flag, env, key) => {
    const raw = GOOD[flag];
    const fromFlag = loadSettings({ [optionKey(flag)]: raw }, {});
    const fromEnv = loadSettings({}, { [env]: raw });
    expect(String(fromFlag[key])).toBe(raw);
    expect(String(fromEnv[key])).toBe(raw);
    expect(fromFlag[key]).not.toEqual(DEFAULT_SETTINGS[key]);
  });

  it('prefers the flag over the environment variable', () => {
    const settings = loadSettings({ toolTimeoutMs: '111' }, { TOOLPORT_TOOL_TIMEOUT_MS: '222' });
    expect(settings.toolTimeoutMs).toBe(111);
  });

  it.each([
    [{ toolTimeoutMs: 'abc' }, {}, '--tool-timeout-ms'],
    [{ toolPrefix: 'Bad-Prefix' }, {}, '--tool-prefix'],
    [{}, { TOOLPORT_PLUGIN_MAX_INFLIGHT: '0' }, 'TOOLPORT_PLUGIN_MAX_INFLIGHT'],
    [{}, { TOOLPORT_LOG_LEVEL: 'loud' }, 'TOOLPORT_LOG_LEVEL'],
    [{ healthIntervalMs: '1.5' }, {}, '--health-interval-ms'],
  ])('refuses a bad value and names where it came from (%j %j)', (flags, env, name) => {
    expect(() => loadSettings(flags, env)).toThrow(UsageError);
    expect(() => loadSettings(flags, env)).toThrow(name);
  });

  it('turns settings back into the environment a child process reads', () => {
    const settings = loadSettings({ toolPrefix: 'acme' }, {});
    expect(loadSettings({}, settingsToEnv(settings))).toEqual(settings);
  });

  it('requires mutual TLS of plugins with --plugin-require-mtls or TOOLPORT_PLUGIN_REQUIRE_MTLS, not by default', () => {
    expect(loadRequireMtls({}, {})).toBe(false);
    expect(loadRequireMtls({ pluginRequireMtls: true }, {})).toBe(true);
    expect(loadRequireMtls({}, { TOOLPORT_PLUGIN_REQUIRE_MTLS: '1' })).toBe(true);
    expect(loadRequireMtls({}, { TOOLPORT_PLUGIN_REQUIRE_MTLS: 'false' })).toBe(false);
    expect(() => loadRequireMtls({}, { TOOLPORT_PLUGIN_REQUIRE_MTLS: 'yes' })).toThrow(UsageError);
    expect(() => loadRequireMtls({}, { TOOLPORT_PLUGIN_REQUIRE_MTLS: 'yes' })).toThrow(/TOOLPORT_PLUGIN_REQUIRE_MTLS: expected true, false, 1 or 0/);
  });
});
