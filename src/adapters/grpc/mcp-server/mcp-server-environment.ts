import { pluginAllowListedEnvironment } from '../../../domain/environment-allow-list';

/**
 * The whole environment of an MCP server process (docs/plugin-protocol.md, MCP servers): the
 * plugin allow-list from the host (with the granted `permissions.env` names), HOME and
 * TOOLPORT_PLUGIN_DATA_DIR = its data folder, PWD, then its manifest's `runtime.env`
 * (substituted), which may override an allow-listed name but never sets a TOOLPORT_* one.
 * No go-plugin variable and no Host API. TMPDIR is the start's own, added by the spawn.
 */
export function mcpServerEnvironment(
  hostEnv: NodeJS.ProcessEnv,
  start: { dataDir: string; workDir: string; grantedEnv: readonly string[]; serverEnv: Readonly<Record<string, string>> },
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = pluginAllowListedEnvironment(hostEnv, start.grantedEnv);
  env.HOME = start.dataDir;
  env.TOOLPORT_PLUGIN_DATA_DIR = start.dataDir;
  env.PWD = start.workDir;
  for (const [name, value] of Object.entries(start.serverEnv)) {
    // Validation refuses these; a record written by an older build must not slip one through.
    if (/^TOOLPORT_/i.test(name) || name === 'TMPDIR') continue;
    env[name] = value;
  }
  return env;
}
