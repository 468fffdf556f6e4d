import { pluginEnvironment } from '../../../src/adapters/grpc/plugin-environment';

describe('pluginEnvironment', () => {
  it('keeps only the allow-list of the host and adds the protocol variables and the data dir', () => {
    const allowed = {
      PATH: '/usr/bin',
      HOME: '/root',
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'UTC',
      NODE_OPTIONS: '--enable-source-maps',
    };
    const host = {
      ...allowed,
      TOOLPORT_ADMIN_TOKEN: 'secret',
      TOOLPORT_SESSION_TOKEN: 'secret',
      TOOLPORT_PLUGIN: 'forged',
      PLUGIN_MIN_PORT: '1',
      LCX: 'not an LC_ variable',
      npm_config_registry: 'x',
    };
    expect(pluginEnvironment(host, '/data/plugins/acme.tools')).toEqual({
      ...allowed,
      TOOLPORT_PLUGIN: 'toolport-plugin-v1',
      PLUGIN_PROTOCOL_VERSIONS: '1',
      PLUGIN_MIN_PORT: '10000',
      PLUGIN_MAX_PORT: '25000',
      TOOLPORT_PLUGIN_DATA_DIR: '/data/plugins/acme.tools',
    });
  });
});
