import { PLUGIN_COOKIE_KEY, PLUGIN_COOKIE_VALUE } from '@toolport/plugin-sdk/protocol';
import { allowListedEnvironment } from '../../domain/environment-allow-list';

/** The magic cookie and protocol variables every plugin gets (docs/plugin-protocol.md §4). */
export { PLUGIN_COOKIE_KEY, PLUGIN_COOKIE_VALUE };

/** What differs on each start: its private TMPDIR and the client certificate of go-plugin's AutoMTLS. */
export interface PerStartEnvironment {
  tmpDir: string;
  clientCertificatePem: string;
}

/**
 * The whole environment of a plugin process: the §8 allow-list copied from the host (with its
 * `OTEL_*` variables but the exporter headers), plus the handshake variables and the data dir,
 * and per start its own TMPDIR and PLUGIN_CLIENT_CERT. Nothing else leaks through (no token,
 * no setting).
 */
export function pluginEnvironment(hostEnv: NodeJS.ProcessEnv, dataDir: string, perStart?: PerStartEnvironment): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = allowListedEnvironment(hostEnv, 'without-headers');
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

/**
 * The Host API variables of one process start (docs/plugin-protocol.md §4, §10), added to its environment;
 * the host's own TOOLPORT_HOST_* variables never pass the allow-list.
 */
export function withHostAccess(env: NodeJS.ProcessEnv, grant: { address: string; token: string }): NodeJS.ProcessEnv {
  return { ...env, TOOLPORT_HOST_ADDR: grant.address, TOOLPORT_HOST_TOKEN: grant.token };
}
