const PASSED_THROUGH = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_OPTIONS']);

/**
 * Which of the host's `OTEL_*` variables a child gets (docs/plugin-protocol.md §4, §11): an agentctl all of
 * them, a plugin all but `OTEL_EXPORTER_OTLP_*HEADERS` (they often carry a collector's API key,
 * which is no plugin's business), anything else none.
 */
export type TelemetryVariables = 'none' | 'without-headers' | 'all';

/**
 * The host variables a child process (plugin or agentctl) may inherit (docs/plugin-protocol.md §4):
 * `PATH`, `HOME`, `TMPDIR`, `LANG`, `LC_*`, `TZ`, `NODE_OPTIONS`, and the `OTEL_*` ones
 * `telemetry` names. Nothing else leaks through.
 */
export function allowListedEnvironment(hostEnv: Record<string, string | undefined>, telemetry: TelemetryVariables = 'none'): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(hostEnv)) {
    if (value !== undefined && (PASSED_THROUGH.has(key) || key.startsWith('LC_') || passesTelemetry(key, telemetry))) env[key] = value;
  }
  return env;
}

function passesTelemetry(key: string, telemetry: TelemetryVariables): boolean {
  if (telemetry === 'none' || !key.startsWith('OTEL_')) return false;
  return telemetry === 'all' || !(key.startsWith('OTEL_EXPORTER_OTLP_') && key.endsWith('HEADERS'));
}
