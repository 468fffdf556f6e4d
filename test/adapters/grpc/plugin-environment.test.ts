import { pluginEnvironment } from '../../../src/adapters/grpc/plugin-environment';

describe('pluginEnvironment', () => {
  it('keeps only the allow-list of the host, adds the protocol variables and the data dir, and makes the data dir HOME', () => {
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
    const { HOME: _home, TMPDIR: _tmpdir, ...copied } = allowed;
    // HOME is the plugin's data dir in every mode; TMPDIR is each start's own, set by the launch.
    expect(pluginEnvironment(host, '/data/plugins/acme.tools')).toEqual({
      ...copied,
      HOME: '/data/plugins/acme.tools',
      TOOLPORT_PLUGIN: 'toolport-plugin-v1',
      PLUGIN_PROTOCOL_VERSIONS: '1',
      PLUGIN_MIN_PORT: '10000',
      PLUGIN_MAX_PORT: '25000',
      TOOLPORT_PLUGIN_DATA_DIR: '/data/plugins/acme.tools',
    });
  });
});

describe('pluginEnvironment and OpenTelemetry', () => {
  it('passes the backend OTEL variables on, but never an exporter header that may carry a collector key', () => {
    const env = pluginEnvironment(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer collector-key',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=traces-key',
      },
      '/data/plugins/acme.tools',
    );
    expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://127.0.0.1:4318');
    expect(Object.keys(env).filter((key) => key.endsWith('HEADERS'))).toEqual([]);
  });
});
