import type { Violation } from './errors';
import type { JsonObject } from './json';
import { isMcpServerManifest, type PluginManifest } from './manifest';
import { placeholdersIn } from './permission-paths';

const NOT_APPLICABLE = 'not applicable per workspace';

/**
 * The keys of `overrides` that cannot differ per workspace (docs/http-api.md, "a workspace's
 * overrides"), one violation each: any key of an `mcp-stdio` plugin, whose configuration is
 * substituted into its command once per start, and a key a permission path substitutes
 * (`${config.KEY}`), since the sandbox and its grants are one per installation, not per call.
 */
export function workspaceOverrideViolations(manifest: Pick<PluginManifest, 'runtime' | 'permissions'>, overrides: JsonObject): Violation[] {
  const keys = Object.keys(overrides);
  if (isMcpServerManifest(manifest)) {
    return keys.map((key) => ({ path: key, message: `${NOT_APPLICABLE}: an mcp-stdio plugin's configuration is substituted once per start` }));
  }
  const substituted = new Map<string, string>();
  for (const list of ['read_paths', 'write_paths'] as const) {
    (manifest.permissions?.[list] ?? []).forEach((path, index) => {
      for (const { placeholder } of placeholdersIn(path)) {
        if (placeholder?.kind === 'config' && !substituted.has(placeholder.key)) substituted.set(placeholder.key, `permissions.${list}[${index}]`);
      }
    });
  }
  return keys.flatMap((key) => {
    const where = substituted.get(key);
    return where === undefined ? [] : [{ path: key, message: `${NOT_APPLICABLE}: ${where} substitutes it, and permissions are granted per installation` }];
  });
}
