const PASSED_THROUGH = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_OPTIONS']);
/** A plugin gets its own HOME and TMPDIR (docs/plugin-protocol.md §4), never the backend's. */
const PASSED_TO_PLUGINS = new Set(['PATH', 'LANG', 'TZ', 'NODE_OPTIONS']);

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
  return copied(hostEnv, PASSED_THROUGH, telemetry);
}

/**
 * The host variables a plugin process inherits (docs/plugin-protocol.md §4): `PATH`, `LANG`,
 * `LC_*`, `TZ`, `NODE_OPTIONS`, the `OTEL_*` ones but the exporter headers, and the `granted`
 * names (its manifest's `permissions.env`) — never a `TOOLPORT_*` one nor an exporter header,
 * whatever was granted. Its HOME and TMPDIR are its own, set by the runtime.
 */
export function pluginAllowListedEnvironment(hostEnv: Record<string, string | undefined>, granted: readonly string[] = []): Record<string, string> {
  const env = copied(hostEnv, PASSED_TO_PLUGINS, 'without-headers');
  for (const key of granted) {
    const value = hostEnv[key];
    if (value !== undefined && !key.startsWith('TOOLPORT_') && !isExporterHeader(key)) env[key] = value;
  }
  return env;
}

function copied(hostEnv: Record<string, string | undefined>, names: ReadonlySet<string>, telemetry: TelemetryVariables): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(hostEnv)) {
    if (value !== undefined && (names.has(key) || key.startsWith('LC_') || passesTelemetry(key, telemetry))) env[key] = value;
  }
  return env;
}

function isExporterHeader(key: string): boolean {
  return key.startsWith('OTEL_EXPORTER_OTLP_') && key.endsWith('HEADERS');
}

function passesTelemetry(key: string, telemetry: TelemetryVariables): boolean {
  if (telemetry === 'none' || !key.startsWith('OTEL_')) return false;
  return telemetry === 'all' || !isExporterHeader(key);
}
