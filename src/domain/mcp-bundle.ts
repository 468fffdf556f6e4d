import type { Violation } from './errors';
import { isJsonObject, type JsonObject, type JsonValue } from './json';
import { isPluginId } from './manifest-validation';
import type { PermissionName } from './permissions';
import { isSemver } from './semver';
import { kindOf, ViolationList } from './violation-list';
import { bundleConfigSchema, type BundleConfig } from './mcp-bundle-config';

/**
 * An MCP Bundle's `manifest.json` as a Toolport manifest (docs/mcp-servers.md, "Bundles"):
 * an `mcp-stdio` plugin whose id comes from `name` (or `--id`), whose `user_config` becomes
 * its `config_schema`, and whose `directory`/`file` values are bound into the sandbox as the
 * grants allow. Pure: the manifest is judged and mapped, never run.
 */
export interface BundleOptions {
  /** `--id`: the plugin id to give instead of the one derived from `name`. */
  id?: string;
  /** What the operator grants: `network`, and `write_paths` or `read_paths` for the bundle's paths. */
  grants?: readonly PermissionName[];
}

export type BundleMapping =
  | {
      ok: true;
      /** A `manifest.yaml` value, to be validated as any other. */
      manifest: JsonObject;
      warnings: Violation[];
      /** The `manifest.json` field a Toolport manifest path came from, for violations of the mapped manifest. */
      fieldOf: (toolportPath: string) => string;
    }
  | { ok: false; violations: Violation[] };

const MANIFEST_VERSIONS = ['0.2', '0.3', '0.4'];
/** `dxt_version`, the field's name before MCPB, was also used by 0.1 bundles. */
const DXT_VERSIONS = ['0.1', ...MANIFEST_VERSIONS];
const SERVER_TYPES = ['node', 'python', 'binary'];
const DESKTOP_FOLDERS = ['HOME', 'DESKTOP', 'DOCUMENTS', 'DOWNLOADS'];
const PLACEHOLDER = /\$\{([^}]*)\}/g;
const DIRNAME_COMMAND = /^\$\{__dirname\}\/+/;
const MAX_ID_LENGTH = 64;

/**
 * The plugin id a bundle's `name` gives: lower-cased, each run of characters outside
 * `[a-z0-9._-]` made one `-`, leading characters other than a letter or digit and trailing
 * `.`, `_` or `-` trimmed, cut to 64 (and trimmed again). Empty when nothing is left.
 */
export function bundleIdFrom(name: string): string {
  const trim = (text: string) => text.replace(/^[^a-z0-9]+/, '').replace(/[._-]+$/, '');
  return trim(trim(name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')).slice(0, MAX_ID_LENGTH));
}

/** The MCPB spec version a manifest declares, or a violation. */
function checkSpecVersion(value: JsonObject, violations: ViolationList): void {
  const manifestVersion = value.manifest_version;
  const dxtVersion = value.dxt_version;
  if (manifestVersion !== undefined) {
    if (typeof manifestVersion !== 'string' || !MANIFEST_VERSIONS.includes(manifestVersion)) {
      violations.add('manifest_version', `must be one of ${MANIFEST_VERSIONS.join(', ')} (the MCPB versions Toolport reads)`);
    }
  } else if (dxtVersion !== undefined) {
    if (typeof dxtVersion !== 'string' || !DXT_VERSIONS.includes(dxtVersion)) violations.add('dxt_version', `must be one of ${DXT_VERSIONS.join(', ')}`);
  } else {
    violations.add('manifest_version', 'is required: this is not an MCP Bundle manifest');
  }
}

function pluginIdOf(value: JsonObject, options: BundleOptions, violations: ViolationList): string {
  if (options.id !== undefined) {
    if (!isPluginId(options.id))
      violations.add('--id', 'must be a plugin id: lower-case letters, digits, ".", "_" or "-", at most 64, not ending in ".", "_" or "-"');
    return options.id;
  }
  if (typeof value.name !== 'string' || value.name === '') {
    violations.add('name', `must be the bundle's name, not ${typeof value.name === 'string' ? 'empty' : kindOf(value.name)}`);
    return '';
  }
  const id = bundleIdFrom(value.name);
  if (id === '') violations.add('name', `"${value.name.slice(0, 64)}" leaves no plugin id; choose one with --id`);
  return id;
}

/** `server.mcp_config` with the `linux` platform override applied: each of command, args and env it gives replaces the base one. */
interface ServerCommand {
  command: { value: unknown; at: string };
  args: { value: unknown; at: string };
  env: { value: unknown; at: string };
}

function serverCommandOf(server: JsonObject, violations: ViolationList): ServerCommand | undefined {
  const type = server.type;
  if (type === 'uv')
    violations.add('server.type', '"uv" is not supported: Toolport runs the server as it is packed (use "python" with its dependencies in the bundle)');
  else if (typeof type !== 'string' || !SERVER_TYPES.includes(type)) violations.add('server.type', `must be one of ${SERVER_TYPES.join(', ')}`);
  const config = server.mcp_config;
  if (!isJsonObject(config)) {
    violations.add('server.mcp_config', `must be a mapping with the server's command, not ${kindOf(config)}`);
    return undefined;
  }
  const base = 'server.mcp_config';
  const found: ServerCommand = {
    command: { value: config.command, at: `${base}.command` },
    args: { value: config.args, at: `${base}.args` },
    env: { value: config.env, at: `${base}.env` },
  };
  const overrides = config.platform_overrides;
  if (overrides !== undefined && !isJsonObject(overrides)) violations.add(`${base}.platform_overrides`, `must be a mapping, not ${kindOf(overrides)}`);
  const linux = isJsonObject(overrides) ? overrides.linux : undefined;
  if (linux !== undefined && !isJsonObject(linux)) violations.add(`${base}.platform_overrides.linux`, `must be a mapping, not ${kindOf(linux)}`);
  if (isJsonObject(linux)) {
    for (const key of ['command', 'args', 'env'] as const) {
      if (linux[key] !== undefined && linux[key] !== null) found[key] = { value: linux[key], at: `${base}.platform_overrides.linux.${key}` };
    }
  }
  return found;
}

/** How a bundle string reads once its MCPB substitutions become Toolport's. */
interface StringRules {
  config: BundleConfig;
  /** Where it goes: a secret goes only into the environment, a list only as a whole argument. */
  place: 'command' | 'arg' | 'env';
}

/** `text` with `${__dirname}` → `${package}`, `${user_config.K}` → `${config.K}`, `${/}` and `${pathSeparator}` → `/`; or why it cannot be. */
function mapString(text: string, rules: StringRules): { value: string } | { problem: string } {
  let problem: string | undefined;
  const whole = /^\$\{user_config\.[^}]+\}$/.test(text);
  const value = text.replace(PLACEHOLDER, (found, name: string) => {
    if (name === '__dirname') return '${package}';
    if (name === '/' || name === 'pathSeparator') return '/';
    if (name.startsWith('user_config.')) {
      const key = name.slice('user_config.'.length);
      const field = rules.config.fields.get(key);
      if (field === undefined) problem ??= `${found} names no user_config field`;
      else if (field.sensitive && rules.place !== 'env') problem ??= `${found} is sensitive: it may be passed to the server only in server.mcp_config.env`;
      else if (field.multiple && !(whole && rules.place === 'arg')) problem ??= `${found} holds several values: it can only be a whole argument in args`;
      else if (rules.place === 'command') problem ??= `${found}: the command cannot come from the configuration`;
      return `\${config.${key}}`;
    }
    if (DESKTOP_FOLDERS.includes(name)) problem ??= `${found} is a folder of a desktop user, which a backend has none of: use a user_config directory instead`;
    else problem ??= `${found} is not a substitution MCPB defines (\${__dirname}, \${user_config.KEY}, \${/}, \${pathSeparator})`;
    return found;
  });
  return problem === undefined ? { value } : { problem };
}

/** The command: `python` means `python3`, `${__dirname}/P` the relative `P`; anything else as it is (runtime validation judges it). */
function mapCommand(found: ServerCommand['command'], config: BundleConfig, violations: ViolationList): string {
  const { value, at } = found;
  if (typeof value !== 'string' || value === '') {
    violations.add(at, `must be the command that starts the server, not ${typeof value === 'string' ? 'empty' : kindOf(value)}`);
    return '';
  }
  if (value === 'python') return 'python3';
  const relative = value.replace(DIRNAME_COMMAND, '');
  if (relative.startsWith('/')) {
    violations.add(at, 'must be node, python, python3, or a file of the bundle (${__dirname}/PATH or a relative PATH), not an absolute path');
    return '';
  }
  const mapped = mapString(relative, { config, place: 'command' });
  if ('problem' in mapped) violations.add(at, mapped.problem);
  else if (mapped.value.includes('${')) violations.add(at, 'must name a file of the bundle as ${__dirname}/PATH, with no other substitution');
  else return mapped.value;
  return '';
}

function mapArgs(found: ServerCommand['args'], config: BundleConfig, violations: ViolationList): string[] {
  const { value, at } = found;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    violations.add(at, `must be a list of strings, not ${kindOf(value)}`);
    return [];
  }
  const args: string[] = [];
  Array.from(value as unknown[]).forEach((arg, index) => {
    if (typeof arg !== 'string') return violations.add(`${at}[${index}]`, `must be text, not ${kindOf(arg)}`);
    const mapped = mapString(arg, { config, place: 'arg' });
    if ('problem' in mapped) return violations.add(`${at}[${index}]`, mapped.problem);
    args.push(mapped.value);
  });
  return args;
}

function mapEnv(found: ServerCommand['env'], config: BundleConfig, violations: ViolationList): Record<string, string> {
  const { value, at } = found;
  const env: Record<string, string> = {};
  if (value === undefined || value === null) return env;
  if (!isJsonObject(value)) {
    violations.add(at, `must be a mapping of names to text, not ${kindOf(value)}`);
    return env;
  }
  for (const [name, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') {
      violations.add(`${at}.${name}`, `must be text, not ${kindOf(entry)}`);
      continue;
    }
    const mapped = mapString(entry, { config, place: 'env' });
    if ('problem' in mapped) violations.add(`${at}.${name}`, mapped.problem);
    else Object.defineProperty(env, name, { value: mapped.value, enumerable: true, writable: true, configurable: true });
  }
  return env;
}

function checkPlatforms(value: JsonObject, violations: ViolationList): void {
  const compatibility = value.compatibility;
  if (!isJsonObject(compatibility) || compatibility.platforms === undefined) return;
  const platforms = compatibility.platforms;
  if (!Array.isArray(platforms)) violations.add('compatibility.platforms', `must be a list, not ${kindOf(platforms)}`);
  else if (!platforms.includes('linux')) violations.add('compatibility.platforms', 'does not list linux, where Toolport runs the server');
}

/**
 * Maps a parsed `manifest.json`; every violation names a `manifest.json` field (or `--id`).
 * Never throws, whatever the input.
 */
export function mapBundleManifest(value: unknown, options: BundleOptions = {}): BundleMapping {
  const violations = new ViolationList();
  if (!isJsonObject(value)) return { ok: false, violations: [{ path: '(root)', message: `manifest.json must be a JSON object, not ${kindOf(value)}` }] };
  checkSpecVersion(value, violations);
  const id = pluginIdOf(value, options, violations);
  if (!isSemver(value.version)) violations.add('version', 'must be a semantic version such as 1.2.3');
  for (const key of ['display_name', 'description'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') violations.add(key, `must be text, not ${kindOf(value[key])}`);
  }
  checkPlatforms(value, violations);
  const config = bundleConfigSchema(value.user_config, violations);
  const server = value.server;
  let runtime: JsonObject | undefined;
  let sources: ServerCommand | undefined;
  if (!isJsonObject(server)) violations.add('server', `must be a mapping with type and mcp_config, not ${kindOf(server)}`);
  else {
    sources = serverCommandOf(server, violations);
    if (sources) {
      const command = mapCommand(sources.command, config, violations);
      runtime = { type: 'mcp-stdio', command, args: mapArgs(sources.args, config, violations), env: mapEnv(sources.env, config, violations) };
    }
  }
  if (!violations.empty || runtime === undefined || sources === undefined) return { ok: false, violations: violations.items };

  const manifest: JsonObject = { api_version: 1, id, version: value.version as string, runtime };
  const displayName = typeof value.display_name === 'string' && value.display_name !== '' ? value.display_name : value.name;
  if (typeof displayName === 'string') manifest.display_name = displayName;
  if (typeof value.description === 'string') manifest.description = value.description;
  if (config.schema !== undefined) manifest.config_schema = config.schema;
  const permissions = permissionsFor(config, options.grants ?? []);
  if (permissions !== undefined) manifest.permissions = permissions;
  return { ok: true, manifest, warnings: config.warnings, fieldOf: fieldMap(sources) };
}

/**
 * A bundle declares no permissions: it gets the network exactly when it is granted, and its
 * `directory`/`file` values read-write when `write_paths` is granted, else read-only when
 * `read_paths` is (else they ask for `write_paths`, which the install then refuses as not granted).
 */
function permissionsFor(config: BundleConfig, grants: readonly PermissionName[]): JsonValue | undefined {
  const network = grants.includes('network');
  const paths = config.pathKeys.map((key) => `\${config.${key}}`);
  if (!network && paths.length === 0) return undefined;
  const readOnly = !grants.includes('write_paths') && grants.includes('read_paths');
  return { network, read_paths: readOnly ? paths : [], write_paths: readOnly ? [] : paths, env: [] };
}

/** Toolport manifest paths back to the `manifest.json` fields they were made from. */
function fieldMap(sources: ServerCommand): (toolportPath: string) => string {
  return (toolportPath) => {
    if (toolportPath === 'id') return 'name';
    if (toolportPath === 'runtime.command') return sources.command.at;
    if (toolportPath.startsWith('runtime.args')) return sources.args.at + toolportPath.slice('runtime.args'.length);
    if (toolportPath.startsWith('runtime.env')) return sources.env.at + toolportPath.slice('runtime.env'.length);
    if (toolportPath.startsWith('config_schema') || toolportPath.startsWith('permissions')) return 'user_config';
    return toolportPath;
  };
}
