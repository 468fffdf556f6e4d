import { DEFAULT_SETTINGS, type Settings } from '../../application/settings';
import { TOOL_PREFIX_PATTERN } from '../../domain/naming';
import { UsageError } from './exit-codes';

type SettingKey = keyof Settings;

interface SettingSpec {
  key: SettingKey;
  flag: string;
  env: string;
  parse(raw: string, name: string): Settings[SettingKey];
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

function positiveInt(raw: string, name: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`${name}: expected a positive whole number, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/** The settings of docs/cli.md: one row each, flag, then environment variable, then default. */
export const SETTING_SPECS: readonly SettingSpec[] = [
  {
    key: 'toolPrefix',
    flag: '--tool-prefix',
    env: 'TOOLPORT_TOOL_PREFIX',
    parse(raw, name) {
      if (!TOOL_PREFIX_PATTERN.test(raw)) {
        throw new UsageError(`${name}: ${JSON.stringify(raw)} must match ${TOOL_PREFIX_PATTERN.source}`);
      }
      return raw;
    },
  },
  { key: 'toolTimeoutMs', flag: '--tool-timeout-ms', env: 'TOOLPORT_TOOL_TIMEOUT_MS', parse: positiveInt },
  { key: 'pluginStartTimeoutMs', flag: '--plugin-start-timeout-ms', env: 'TOOLPORT_PLUGIN_START_TIMEOUT_MS', parse: positiveInt },
  { key: 'restartBackoffMs', flag: '--restart-backoff-ms', env: 'TOOLPORT_RESTART_BACKOFF_MS', parse: positiveInt },
  { key: 'healthIntervalMs', flag: '--health-interval-ms', env: 'TOOLPORT_HEALTH_INTERVAL_MS', parse: positiveInt },
  { key: 'pluginMaxInflight', flag: '--plugin-max-inflight', env: 'TOOLPORT_PLUGIN_MAX_INFLIGHT', parse: positiveInt },
  { key: 'sessionMaxInflight', flag: '--session-max-inflight', env: 'TOOLPORT_SESSION_MAX_INFLIGHT', parse: positiveInt },
  { key: 'approvalTimeoutMs', flag: '--approval-timeout-ms', env: 'TOOLPORT_APPROVAL_TIMEOUT_MS', parse: positiveInt },
  { key: 'approvalRetentionMs', flag: '--approval-retention-ms', env: 'TOOLPORT_APPROVAL_RETENTION_MS', parse: positiveInt },
  { key: 'approvalProgressMs', flag: '--approval-progress-ms', env: 'TOOLPORT_APPROVAL_PROGRESS_MS', parse: positiveInt },
  { key: 'sessionGraceMs', flag: '--session-grace-ms', env: 'TOOLPORT_SESSION_GRACE_MS', parse: positiveInt },
  { key: 'sessionRetentionMs', flag: '--session-retention-ms', env: 'TOOLPORT_SESSION_RETENTION_MS', parse: positiveInt },
  { key: 'sessionRetentionMax', flag: '--session-retention-max', env: 'TOOLPORT_SESSION_RETENTION_MAX', parse: positiveInt },
  {
    key: 'logLevel',
    flag: '--log-level',
    env: 'TOOLPORT_LOG_LEVEL',
    parse(raw, name) {
      if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
        throw new UsageError(`${name}: ${JSON.stringify(raw)} is not one of ${LOG_LEVELS.join(', ')}`);
      }
      return raw as Settings['logLevel'];
    },
  },
];

/** The commander option key of a flag: `--tool-timeout-ms` → `toolTimeoutMs`. */
export function optionKey(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Resolves every setting: flag value, then environment variable, then default. A bad value
 * throws UsageError naming the flag or variable it came from.
 */
export function loadSettings(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): Settings {
  const settings: Settings = { ...DEFAULT_SETTINGS };
  for (const spec of SETTING_SPECS) {
    const fromFlag = flags[optionKey(spec.flag)];
    const fromEnv = env[spec.env];
    if (typeof fromFlag === 'string') {
      (settings as unknown as Record<string, unknown>)[spec.key] = spec.parse(fromFlag, spec.flag);
    } else if (fromEnv !== undefined && fromEnv !== '') {
      (settings as unknown as Record<string, unknown>)[spec.key] = spec.parse(fromEnv, spec.env);
    }
  }
  return settings;
}

/** Environment variables that carry `settings` on to a child process (agentctl). */
export function settingsToEnv(settings: Settings): Record<string, string> {
  const env: Record<string, string> = {};
  for (const spec of SETTING_SPECS) env[spec.env] = String(settings[spec.key]);
  return env;
}

/** The `serve --plugin-require-mtls` switch and its environment variable. */
export const REQUIRE_MTLS_FLAG = '--plugin-require-mtls';
export const REQUIRE_MTLS_ENV = 'TOOLPORT_PLUGIN_REQUIRE_MTLS';

/**
 * Whether the backend refuses plugins that answer without mutual TLS: the flag, else
 * TOOLPORT_PLUGIN_REQUIRE_MTLS (`true`/`1` or `false`/`0`), else no. A backend-only switch,
 * so it is not one of the settings passed on to agentctls.
 */
export function loadRequireMtls(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): boolean {
  if (flags[optionKey(REQUIRE_MTLS_FLAG)] === true) return true;
  const raw = env[REQUIRE_MTLS_ENV];
  if (raw === undefined || raw === '') return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new UsageError(`${REQUIRE_MTLS_ENV}: expected true, false, 1 or 0, got ${JSON.stringify(raw)}`);
}
