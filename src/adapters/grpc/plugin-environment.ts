import { PLUGIN_COOKIE_KEY, PLUGIN_COOKIE_VALUE } from '@toolport/plugin-sdk/protocol';
import { pluginAllowListedEnvironment } from '../../domain/environment-allow-list';

/** The magic cookie and protocol variables every plugin gets (docs/plugin-protocol.md §4). */
export { PLUGIN_COOKIE_KEY, PLUGIN_COOKIE_VALUE };

/** What differs on each start: its private TMPDIR and the client certificate of go-plugin's AutoMTLS. */
export interface PerStartEnvironment {
  tmpDir: string;
  clientCertificatePem: string;
  /** Its working directory (PWD): the installed version's folder. */
  workDir?: string;
  /** Sandboxed: it listens on a unix socket in its TMPDIR (PLUGIN_UNIX_SOCKET_DIR). */
  sandboxed?: boolean;
  /** Backend variables its manifest's `permissions.env` names, granted by the operator. */
  grantedEnv?: readonly string[];
}

/**
 * The whole environment of a plugin process (docs/plugin-protocol.md §4): the allow-list copied
 * from the host (with its `OTEL_*` variables but the exporter headers) and the granted names,
 * plus the handshake variables, the data dir, HOME = the data dir, and per start its own
 * TMPDIR, PWD, PLUGIN_CLIENT_CERT and, sandboxed, PLUGIN_UNIX_SOCKET_DIR = that TMPDIR.
 * Nothing else leaks through (no token, no setting, not the backend's HOME).
 */
export function pluginEnvironment(hostEnv: NodeJS.ProcessEnv, dataDir: string, perStart?: PerStartEnvironment): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = pluginAllowListedEnvironment(hostEnv, perStart?.grantedEnv);
  env[PLUGIN_COOKIE_KEY] = PLUGIN_COOKIE_VALUE;
  env.PLUGIN_PROTOCOL_VERSIONS = '1';
  env.PLUGIN_MIN_PORT = '10000';
  env.PLUGIN_MAX_PORT = '25000';
  env.TOOLPORT_PLUGIN_DATA_DIR = dataDir;
  env.HOME = dataDir;
  if (perStart) {
    env.TMPDIR = perStart.tmpDir;
    env.PLUGIN_CLIENT_CERT = perStart.clientCertificatePem;
    if (perStart.workDir !== undefined) env.PWD = perStart.workDir;
    if (perStart.sandboxed) env.PLUGIN_UNIX_SOCKET_DIR = perStart.tmpDir;
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
