import { configurationViolations } from '../../domain/config-check';
import { substitutionViolations } from '../../domain/permission-paths';
import { mcpSubstitutionViolations } from '../../domain/mcp-runtime-substitution';
import { listViolations, type Violation } from '../../domain/errors';
import type { JsonObject } from '../../domain/json';
import type { PluginManifest } from '../../domain/manifest';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { PluginRecords } from '../ports/plugin-records';
import { SecretUnreadableError, type SealedValue, type SecretBox } from '../ports/secret-box';
import { openConfiguration } from './plugin-configuration';
import { workspaceMergeViolations } from './workspace-configuration';

/** A plugin's stored configuration, checked against one version's config_schema. */
export interface StoredConfiguration {
  sealed: SealedValue | null;
  /** `{}` when none was set, or when it cannot be decrypted. */
  values: JsonObject;
  /** Empty when the configuration satisfies the schema. */
  violations: Violation[];
  /** False when the stored value cannot be decrypted with this backend's key. */
  readable: boolean;
}

/** Reads the plugin's stored configuration and checks it against `manifest`'s config_schema. */
export async function storedConfiguration(
  deps: { secrets: SecretBox; schemas: SchemaCompiler },
  source: Pick<PluginRecords, 'getConfig'>,
  pluginId: string,
  manifest: PluginManifest,
): Promise<StoredConfiguration> {
  const sealed = (await source.getConfig(pluginId)) ?? null;
  try {
    const values = openConfiguration(deps.secrets, pluginId, sealed);
    const violations = [
      ...configurationViolations(manifest.config_schema, values, deps.schemas),
      ...substitutionViolations(manifest.permissions, values),
      ...mcpSubstitutionViolations(manifest.runtime, values),
    ];
    return { sealed, values, violations, readable: true };
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    const violations = [
      { path: '(root)', message: `the stored configuration cannot be decrypted with this backend's secret key (key id ${error.keyId}); set it again` },
    ];
    return { sealed, values: {}, violations, readable: false };
  }
}

/** The `last_error` of a plugin in `needs_config`: what its configuration lacks. */
export function needsConfigReason(violations: Violation[]): string {
  return `needs configuration: ${listViolations(violations)}`;
}

/** The stored configurations of the installed plugins, opened with this backend's key. */
export class StoredConfigurations {
  constructor(
    private readonly records: PluginRecords,
    private readonly secrets: SecretBox,
    private readonly schemas: SchemaCompiler,
  ) {}

  /** See storedConfiguration: the committed configuration of `pluginId`, checked against `manifest`. */
  of(pluginId: string, manifest: PluginManifest): Promise<StoredConfiguration> {
    return storedConfiguration({ secrets: this.secrets, schemas: this.schemas }, this.records, pluginId, manifest);
  }

  /** See workspaceMergeViolations: how each workspace's overrides, and their merge with `instance`, break `manifest`. */
  workspaceMerges(pluginId: string, manifest: PluginManifest, instance: JsonObject): Promise<Violation[]> {
    return workspaceMergeViolations({ secrets: this.secrets, schemas: this.schemas }, this.records, pluginId, manifest, instance);
  }
}
