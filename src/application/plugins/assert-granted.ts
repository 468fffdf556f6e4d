import type { PluginManifest } from '../../domain/manifest';
import { PermissionNotGrantedError, permissionsOf, ungrantedPermissions, type PermissionName } from '../../domain/permissions';

/**
 * Throws PermissionNotGrantedError when `manifest` asks for a permission `grants` does not
 * cover; with `running` (an upgrade) only what grows past that version's permissions counts.
 */
export function assertGranted(manifest: PluginManifest, grants: readonly PermissionName[] | undefined, running?: PluginManifest): void {
  const violations = ungrantedPermissions(permissionsOf(manifest), new Set(grants ?? []), running && permissionsOf(running));
  if (violations.length > 0) throw new PermissionNotGrantedError(manifest.id, violations);
}
