import type { Violation } from './errors';
import type { JsonObject } from './json';

/**
 * The substitutions of a permission path (docs/plugin-protocol.md §2, `permissions`): each
 * `${package}` (the installed version's folder), `${data_dir}` (its `TOOLPORT_PLUGIN_DATA_DIR`)
 * or `${config.KEY}` (a configuration value: text as it is, numbers in JSON form, booleans
 * `true`/`false`) anywhere in the path, replaced at each start.
 */
const PLACEHOLDER = /\$\{([^}]*)\}/g;
const CONFIG_PREFIX = 'config.';

/** What a placeholder's name stands for; undefined for one that is not allowed. */
export type Placeholder = { kind: 'package' } | { kind: 'data_dir' } | { kind: 'config'; key: string };

export function parsePlaceholder(name: string): Placeholder | undefined {
  if (name === 'package') return { kind: 'package' };
  if (name === 'data_dir') return { kind: 'data_dir' };
  if (name.startsWith(CONFIG_PREFIX) && name.length > CONFIG_PREFIX.length) return { kind: 'config', key: name.slice(CONFIG_PREFIX.length) };
  return undefined;
}

/** Every `${…}` in `path`, in order, with its parsed meaning. */
export function placeholdersIn(path: string): Array<{ text: string; placeholder: Placeholder | undefined }> {
  return [...path.matchAll(PLACEHOLDER)].map((match) => ({ text: match[0], placeholder: parsePlaceholder(match[1]!) }));
}

/** The `config_schema` keys `paths` substitute. */
export function configKeysIn(paths: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const path of paths) {
    for (const { placeholder } of placeholdersIn(path)) if (placeholder?.kind === 'config') keys.add(placeholder.key);
  }
  return [...keys];
}

export interface SubstitutionValues {
  package: string;
  dataDir: string;
  config: JsonObject;
}

export type Substituted = { ok: true; path: string } | { ok: false; missingKey: string };

/** `template` with each placeholder replaced; a `${config.KEY}` whose KEY has no value (or one that is not text, a number or a boolean) is missing. */
export function substitutePath(template: string, values: SubstitutionValues): Substituted {
  let missingKey: string | undefined;
  const path = template.replace(PLACEHOLDER, (text, name: string) => {
    const placeholder = parsePlaceholder(name);
    if (placeholder === undefined) return text;
    if (placeholder.kind === 'package') return values.package;
    if (placeholder.kind === 'data_dir') return values.dataDir;
    const value = Object.hasOwn(values.config, placeholder.key) ? values.config[placeholder.key] : undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
    missingKey ??= placeholder.key;
    return text;
  });
  return missingKey === undefined ? { ok: true, path } : { ok: false, missingKey };
}

const WHOLE_CONFIG = /^\$\{config\.([^}]+)\}$/;

export type Expanded = { ok: true; values: string[] } | { ok: false; missingKey: string };

/**
 * `template` substituted as substitutePath does, except that a template that is exactly one
 * `${config.KEY}` whose value is a list of text stands for each element (an MCP Bundle's
 * `multiple` value, docs/mcp-servers.md): one argument, or one granted path, per element.
 */
export function expandTemplate(template: string, values: SubstitutionValues): Expanded {
  const whole = WHOLE_CONFIG.exec(template);
  const value = whole && Object.hasOwn(values.config, whole[1]!) ? values.config[whole[1]!] : undefined;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return { ok: true, values: value as string[] };
  const result = substitutePath(template, values);
  return result.ok ? { ok: true, values: [result.path] } : result;
}

/** The folders a plugin's sandbox holds read-only (symlinks kept): an interpreter there needs no grant. */
export const SYSTEM_DIRECTORIES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'] as const;

/** Whether `path` is `folder` or lies inside it (both absolute and normalised). */
export function isWithin(path: string, folder: string): boolean {
  if (folder === '/') return path.startsWith('/');
  return path === folder || path.startsWith(`${folder}/`);
}

/** Whether `path` lies in a system directory. */
export function inSystemDirectory(path: string): boolean {
  return SYSTEM_DIRECTORIES.some((folder) => isWithin(path, folder));
}

/**
 * One violation per `${config.KEY}` of the permission paths whose KEY has no usable value in
 * `values` (located by KEY, as a configuration violation is): until it has one, the plugin waits
 * in `needs_config` (docs/lifecycle.md).
 */
export function substitutionViolations(
  permissions: { read_paths: readonly string[]; write_paths: readonly string[] } | undefined,
  values: JsonObject,
): Violation[] {
  if (!permissions) return [];
  const violations: Violation[] = [];
  const named = new Set<string>();
  for (const [list, paths] of [
    ['read_paths', permissions.read_paths],
    ['write_paths', permissions.write_paths],
  ] as const) {
    paths.forEach((path, index) => {
      const result = expandTemplate(path, { package: '', dataDir: '', config: values });
      if (result.ok || named.has(result.missingKey)) return;
      named.add(result.missingKey);
      violations.push({ path: result.missingKey, message: `needs a value: permissions.${list}[${index}] substitutes it` });
    });
  }
  return violations;
}
