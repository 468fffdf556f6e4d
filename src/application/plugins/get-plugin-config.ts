import type { PluginConfig } from '../../api';
import { maskConfiguration } from '../../domain/config-fields';
import { ToolportError } from '../../domain/errors';
import type { PluginRecords } from '../ports/plugin-records';
import type { SecretBox } from '../ports/secret-box';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import { findPlugin } from './find-plugin';
import { storedConfiguration } from './stored-configuration';

/** Reads a plugin's configuration for the operator; secrets never leave masked. */
export class GetPluginConfig {
  constructor(
    private readonly store: PluginRecords,
    private readonly deps: { secrets: SecretBox; schemas: SchemaCompiler },
  ) {}

  async execute(pluginId: string): Promise<PluginConfig> {
    const record = await findPlugin(this.store, pluginId);
    const stored = await storedConfiguration(this.deps, this.store, pluginId, record.manifest);
    if (!stored.readable) throw new ToolportError('INTERNAL', stored.violations[0]!.message);
    return { values: maskConfiguration(record.manifest.config_schema, stored.values) };
  }
}
