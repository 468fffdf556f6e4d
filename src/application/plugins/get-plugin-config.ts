import { maskConfiguration } from '../../domain/config-fields';
import { ToolportError } from '../../domain/errors';
import type { JsonObject } from '../../domain/json';
import type { PluginStore } from '../ports/plugin-store';
import type { SecretBox } from '../ports/secret-box';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import { findPlugin } from './find-plugin';
import { storedConfiguration } from './stored-configuration';

/** The configuration as the operator API shows it (CONTRACT §9): the keys that have a value, secrets masked. */
export interface PluginConfigView {
  values: JsonObject;
}

/** Reads a plugin's configuration for the operator; secrets never leave masked. */
export class GetPluginConfig {
  constructor(
    private readonly store: PluginStore,
    private readonly deps: { secrets: SecretBox; schemas: SchemaCompiler },
  ) {}

  async execute(pluginId: string): Promise<PluginConfigView> {
    const record = await findPlugin(this.store, pluginId);
    const stored = await storedConfiguration(this.deps, this.store, pluginId, record.manifest);
    if (!stored.readable) throw new ToolportError('INTERNAL', stored.violations[0]!.message);
    return { values: maskConfiguration(record.manifest.config_schema, stored.values) };
  }
}
