import { utf8ByteLength } from './byte-length';
import { CONTROL_CHARACTER_PROBLEM, hasControlCharacters } from './control-characters';
import { secretFields } from './config-fields';
import { isJsonObject, type JsonObject } from './json';
import { placeholdersIn } from './permission-paths';
import type { PluginPermissions } from './permissions';
import { kindOf, type ViolationList } from './violation-list';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names the host sets itself for every plugin (docs/operations.md, environment): a grant may not replace them. */
const HOST_SET_NAMES = new Set([
  'HOME',
  'TMPDIR',
  'PWD',
  'PLUGIN_PROTOCOL_VERSIONS',
  'PLUGIN_MIN_PORT',
  'PLUGIN_MAX_PORT',
  'PLUGIN_CLIENT_CERT',
  'PLUGIN_UNIX_SOCKET_DIR',
]);
/** At most this many entries in each list. */
export const MAX_PERMISSION_ENTRIES = 64;
const MAX_PATH_BYTES = 4096;

/** Why `name` cannot be passed through, or undefined when it can. */
function envNameProblem(name: string): string | undefined {
  if (!ENV_NAME.test(name)) return `must be an environment variable name matching ${ENV_NAME.source}`;
  if (/^TOOLPORT_/i.test(name)) return "must not be a TOOLPORT_* variable: those are the backend's own";
  if (/^OTEL_EXPORTER_OTLP_.*HEADERS$/i.test(name)) return "must not be an OTEL_EXPORTER_OTLP_*HEADERS variable: those carry the exporter's credentials";
  if (HOST_SET_NAMES.has(name)) return 'is set by the host for every plugin and cannot be passed through';
  return undefined;
}

/** Why `path` cannot be a permission path, or undefined when it can. */
function pathProblem(path: string, configSchema: JsonObject | undefined): string | undefined {
  if (path.trim() === '') return 'must not be empty';
  if (path.includes('\0')) return 'must not contain a NUL character';
  if (hasControlCharacters(path)) return CONTROL_CHARACTER_PROBLEM;
  if (utf8ByteLength(path) > MAX_PATH_BYTES) return `must be at most ${MAX_PATH_BYTES} bytes`;
  const placeholders = placeholdersIn(path);
  const first = placeholders[0];
  const startsWithPlaceholder = first !== undefined && first.placeholder !== undefined && path.startsWith(first.text);
  if (!path.startsWith('/') && !startsWithPlaceholder) return 'must be an absolute host path or start with ${package}, ${data_dir} or ${config.KEY}';
  const properties = isJsonObject(configSchema?.properties) ? configSchema.properties : {};
  const secrets = secretFields(configSchema);
  for (const { text, placeholder } of placeholders) {
    if (placeholder === undefined) return `${text} is not a substitution: use \${package}, \${data_dir} or \${config.KEY}`;
    if (placeholder.kind !== 'config') continue;
    if (!Object.hasOwn(properties, placeholder.key)) return `${text} names no property of config_schema`;
    if (secrets.has(placeholder.key)) return `${text} is a secret, which may not be substituted into a path`;
  }
  return undefined;
}

function validateList(value: unknown, path: string, violations: ViolationList, problem: (entry: string) => string | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    violations.add(path, `must be a list of strings, not ${kindOf(value)}`);
    return [];
  }
  const entries: unknown[] = Array.from(value);
  if (entries.length > MAX_PERMISSION_ENTRIES) violations.add(path, `must have at most ${MAX_PERMISSION_ENTRIES} entries (has ${entries.length})`);
  const seen = new Map<string, number>();
  const list: string[] = [];
  entries.forEach((entry, index) => {
    const at = `${path}[${index}]`;
    if (typeof entry !== 'string') return violations.add(at, `must be text, not ${kindOf(entry)}`);
    const found = problem(entry);
    if (found !== undefined) return violations.add(at, found);
    const first = seen.get(entry);
    if (first !== undefined) return violations.add(at, `duplicate of ${path}[${first}]`);
    seen.set(entry, index);
    list.push(entry);
  });
  return list;
}

/**
 * Validates a manifest's `permissions` (docs/plugin-protocol.md §2), each violation located
 * (`permissions.read_paths[0]`…). Answers them with every key present, or undefined when the
 * manifest has none or any is wrong.
 */
export function validatePermissions(value: unknown, configSchema: JsonObject | undefined, violations: ViolationList): PluginPermissions | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) {
    violations.add('permissions', `must be a mapping, not ${kindOf(value)}`);
    return undefined;
  }
  const before = violations.items.length;
  const network = value.network;
  if (network !== undefined && network !== null && typeof network !== 'boolean')
    violations.add('permissions.network', `must be true or false, not ${kindOf(network)}`);
  const schema = isJsonObject(configSchema) ? configSchema : undefined;
  const permissions: PluginPermissions = {
    network: network === true,
    read_paths: validateList(value.read_paths, 'permissions.read_paths', violations, (entry) => pathProblem(entry, schema)),
    write_paths: validateList(value.write_paths, 'permissions.write_paths', violations, (entry) => pathProblem(entry, schema)),
    env: validateList(value.env, 'permissions.env', violations, envNameProblem),
  };
  return violations.items.length > before ? undefined : permissions;
}
