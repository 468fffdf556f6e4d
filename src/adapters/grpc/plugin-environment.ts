import { allowListedEnvironment } from '../../domain/environment-allow-list';

/** The magic cookie and protocol variables every plugin gets (CONTRACT §8). */
export const PLUGIN_COOKIE_KEY = 'TOOLPORT_PLUGIN';
export const PLUGIN_COOKIE_VALUE = 'toolport-plugin-v1';

/** What differs on each start: its private TMPDIR and the client certificate of go-plugin's AutoMTLS. */
export interface PerStartEnvironment {
  tmpDir: string;
  clientCertificatePem: string;
}

/**
 * The whole environment of a plugin process: the §8 allow-list copied from the host, plus the
 * handshake variables and the data dir, and per start its own TMPDIR and PLUGIN_CLIENT_CERT.
 * Nothing else leaks through (no token, no setting).
 */
export function pluginEnvironment(hostEnv: NodeJS.ProcessEnv, dataDir: string, perStart?: PerStartEnvironment): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = allowListedEnvironment(hostEnv);
  env[PLUGIN_COOKIE_KEY] = PLUGIN_COOKIE_VALUE;
  env.PLUGIN_PROTOCOL_VERSIONS = '1';
  env.PLUGIN_MIN_PORT = '10000';
  env.PLUGIN_MAX_PORT = '25000';
  env.TOOLPORT_PLUGIN_DATA_DIR = dataDir;
  if (perStart) {
    env.TMPDIR = perStart.tmpDir;
    env.PLUGIN_CLIENT_CERT = perStart.clientCertificatePem;
  }
  return env;
}
