const PASSED_THROUGH = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_OPTIONS']);

/**
 * The host variables a child process (plugin or agentctl) may inherit (CONTRACT §8):
 * `PATH`, `HOME`, `TMPDIR`, `LANG`, `LC_*`, `TZ`, `NODE_OPTIONS`. Nothing else leaks through.
 */
export function allowListedEnvironment(hostEnv: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(hostEnv)) {
    if (value !== undefined && (PASSED_THROUGH.has(key) || key.startsWith('LC_'))) env[key] = value;
  }
  return env;
}
