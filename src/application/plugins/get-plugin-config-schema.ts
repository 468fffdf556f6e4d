import type { PluginConfigSchema } from '../../api';
import { secretFields } from '../../domain/config-fields';
import type { PluginRecords } from '../ports/plugin-records';
import { findPlugin } from './find-plugin';

/** The config_schema of a plugin's installed version and which of its keys are secrets. */
export class GetPluginConfigSchema {
  constructor(private readonly store: PluginRecords) {}

  async execute(pluginId: string): Promise<PluginConfigSchema> {
    const schema = (await findPlugin(this.store, pluginId)).manifest.config_schema ?? null;
    return { schema, secrets: [...secretFields(schema ?? undefined)].sort() };
  }
}
