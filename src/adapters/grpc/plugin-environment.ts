/** The magic cookie and protocol variables every plugin gets (CONTRACT §8). */
export const PLUGIN_COOKIE_KEY = 'TOOLPORT_PLUGIN';
export const PLUGIN_COOKIE_VALUE = 'toolport-plugin-v1';

const PASSED_THROUGH = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_OPTIONS']);

/**
 * The whole environment of a plugin process: the §8 allow-list copied from the host, plus the
 * handshake variables and the data dir. Nothing else leaks through (no token, no setting).
 */
export function pluginEnvironment(hostEnv: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(hostEnv)) {
    if (value === undefined) continue;
    if (PASSED_THROUGH.has(key) || key.startsWith('LC_')) env[key] = value;
  }
  env[PLUGIN_COOKIE_KEY] = PLUGIN_COOKIE_VALUE;
  env.PLUGIN_PROTOCOL_VERSIONS = '1';
  env.PLUGIN_MIN_PORT = '10000';
  env.PLUGIN_MAX_PORT = '25000';
  env.TOOLPORT_PLUGIN_DATA_DIR = dataDir;
  return env;
}
