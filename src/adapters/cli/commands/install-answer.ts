import type { JsonObject, PluginRecord } from '../../../api';
import { isJsonObject } from '../../../domain/json';
import type { ApiAnswer, ApiClient } from '../api-client';
import type { CommandInput } from '../program';

/** What an install or upgrade answered, and, for a plugin waiting for its configuration, the keys it still lacks. */
export interface InstallAnswer {
  record: PluginRecord;
  /** Required top-level keys of its `config_schema` with no value yet; null when the plugin is not in `needs_config`. */
  missing: string[] | null;
}

/**
 * The required top-level keys of `schema` that `values` has no value for, sorted: what
 * `plugin config set` has to be given before the plugin can start.
 */
export function missingConfigKeys(schema: JsonObject | null, values: JsonObject): string[] {
  const required = schema !== null && Array.isArray(schema.required) ? schema.required : [];
  return required.filter((key): key is string => typeof key === 'string' && !(key in values)).sort();
}

/**
 * Sends the install or upgrade, and, when its plugin waits in `needs_config` (and the answer is
 * for a person), reads its schema and its configuration (secrets masked) to name what is missing.
 */
export async function installWithHint(
  client: ApiClient,
  input: CommandInput,
  send: () => Promise<ApiAnswer<PluginRecord>>,
): Promise<ApiAnswer<PluginRecord | InstallAnswer>> {
  const answer = await send();
  if (!answer.ok || input.global.json) return answer;
  if (answer.body.status !== 'needs_config') return { ...answer, body: { record: answer.body, missing: null } };
  const params = { id: answer.body.id };
  const [schema, config] = await Promise.all([
    client.call('GET /api/v1/plugins/:id/config/schema', { params }),
    client.call('GET /api/v1/plugins/:id/config', { params }),
  ]);
  const values = config.ok && isJsonObject(config.body.values) ? config.body.values : {};
  const missing = schema.ok ? missingConfigKeys(schema.body.schema, values) : [];
  return { ...answer, body: { record: answer.body, missing } };
}

/**
 * The lines a person reads after an install or upgrade: the version, its SHA-256, then its tools;
 * a plugin in `needs_config` has none yet, so instead the command that gives it its
 * configuration, naming every required key still missing (docs/cli.md).
 */
export function describeInstalled(verb: string) {
  return (answer: PluginRecord | InstallAnswer): string => {
    const { record: plugin, missing } = 'record' in answer ? answer : { record: answer, missing: null };
    const warnings = plugin.warnings.map((w) => `Warning: ${w.path}: ${w.message}\n`).join('');
    const head = `${verb} ${plugin.id} ${plugin.version} (${plugin.status})\nSHA-256: ${plugin.package_sha256}\n`;
    if (plugin.status === 'needs_config') {
      const reason = plugin.last_error ? `It waits for its configuration: ${plugin.last_error}\n` : 'It waits for its configuration.\n';
      const keys = missing && missing.length > 0 ? missing.map((key) => `${key}=…`).join(' ') : 'KEY=VALUE…';
      const hint = `Its tools appear once it is configured: toolport plugin config set ${plugin.id} ${keys}\n`;
      return `${head}${reason}${hint}${warnings}`;
    }
    const tools = plugin.tools.length > 0 ? plugin.tools.map((name) => `  ${name}`).join('\n') : '  (none)';
    return `${head}Tools:\n${tools}\n${warnings}`;
  };
}
