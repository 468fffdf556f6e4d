import { ToolportError, type Violation } from './errors';
import type { PluginManifest } from './manifest';

/**
 * What a plugin may reach beyond its own folders (docs/plugin-protocol.md §2, `permissions`):
 * the host's network, host paths read-only or read-write, and backend environment variables.
 * The operator grants each kind by name at install and upgrade (docs/lifecycle.md, grants);
 * nothing here touches a disk.
 */
export const PERMISSION_NAMES = ['network', 'read_paths', 'write_paths', 'env'] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];

/** A manifest's `permissions`, every key present (`false` / `[]` for what it does not ask). */
export interface PluginPermissions {
  network: boolean;
  /** Absolute host paths, or starting with `${package}`, `${data_dir}` or `${config.KEY}`; not yet substituted. */
  read_paths: string[];
  write_paths: string[];
  /** Names of backend environment variables passed through. */
  env: string[];
}

export const NO_PERMISSIONS: PluginPermissions = Object.freeze({
  network: false,
  read_paths: Object.freeze([]) as unknown as string[],
  write_paths: Object.freeze([]) as unknown as string[],
  env: Object.freeze([]) as unknown as string[],
});

export function isPermissionName(value: unknown): value is PermissionName {
  return typeof value === 'string' && (PERMISSION_NAMES as readonly string[]).includes(value);
}

/** The permissions `manifest` declares, every key present. */
export function permissionsOf(manifest: Pick<PluginManifest, 'permissions'>): PluginPermissions {
  const declared = manifest.permissions;
  if (!declared) return { network: false, read_paths: [], write_paths: [], env: [] };
  return { network: declared.network, read_paths: [...declared.read_paths], write_paths: [...declared.write_paths], env: [...declared.env] };
}

/** What each kind of permission gives, for refusals. */
const WHAT: Record<PermissionName, string> = {
  network: "the host's network",
  read_paths: 'host paths to read',
  write_paths: 'host paths to write',
  env: 'backend environment variables',
};

/** The values of `name` in `permissions` that `running` lacks (all of them when `running` is absent). */
function added(name: Exclude<PermissionName, 'network'>, permissions: PluginPermissions, running: PluginPermissions | undefined): string[] {
  const had = new Set(running?.[name] ?? []);
  return [...new Set(permissions[name])].filter((value) => !had.has(value));
}

/**
 * What `permissions` asks that `grants` does not cover, one violation per kind
 * (`{path: "permissions.<name>", message}`). With `running` (an upgrade) only what grows needs
 * a grant: `network` newly true, or a path or env name the running version lacks. A path is
 * compared as declared, so a configuration that re-points a `${config.KEY}` path grows nothing.
 * Grants for permissions not asked are ignored.
 */
export function ungrantedPermissions(permissions: PluginPermissions, grants: ReadonlySet<PermissionName>, running?: PluginPermissions): Violation[] {
  const violations: Violation[] = [];
  const upgrade = running !== undefined;
  if (permissions.network && !running?.network && !grants.has('network')) {
    violations.push({
      path: 'permissions.network',
      message: `asks for ${WHAT.network}${upgrade ? ', which the running version does not have,' : ''} and it was not granted (--grant network)`,
    });
  }
  for (const name of ['read_paths', 'write_paths', 'env'] as const) {
    const wanted = added(name, permissions, running);
    if (wanted.length === 0 || grants.has(name)) continue;
    const list = wanted.map((value) => `"${value}"`).join(', ');
    violations.push({
      path: `permissions.${name}`,
      message: `asks for ${WHAT[name]} (${list})${upgrade ? ' the running version does not have' : ''} and they were not granted (--grant ${name})`,
    });
  }
  return violations;
}

/** A package asking for permissions the operator did not grant; `details` has one violation per kind. */
export class PermissionNotGrantedError extends ToolportError {
  constructor(
    readonly pluginId: string,
    readonly violations: Violation[],
  ) {
    const names = violations.map((violation) => violation.path.replace(/^permissions\./, '')).join(', ');
    super(
      'PERMISSION_NOT_GRANTED',
      `plugin "${pluginId}" asks for permissions that were not granted: ${names}; grant them with --grant <name> or --grant-all`,
      violations,
    );
    this.name = 'PermissionNotGrantedError';
  }
}

/** The grants as the operator gave them: each a permission name; throws BAD_REQUEST naming an unknown one. */
export function parseGrants(values: readonly unknown[]): Set<PermissionName> {
  const grants = new Set<PermissionName>();
  for (const value of values) {
    if (!isPermissionName(value)) {
      const shown = typeof value === 'string' ? `"${value}"` : 'a non-string value';
      throw new ToolportError('BAD_REQUEST', `unknown grant ${shown}: grants are ${PERMISSION_NAMES.join(', ')}`);
    }
    grants.add(value);
  }
  return grants;
}
