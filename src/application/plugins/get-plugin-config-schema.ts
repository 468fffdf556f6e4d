import { secretFields } from '../../domain/config-fields';
import type { JsonObject } from '../../domain/json';
import type { PluginStore } from '../ports/plugin-store';
import { findPlugin } from './find-plugin';

/** What a plugin's configuration may hold, so a client (the CLI) can type the values it sends. */
export interface PluginConfigSchemaView {
  /** The installed version's config_schema; null when it declares none. */
  schema: JsonObject | null;
  /** Its secret keys (writeOnly or format password), sorted. */
  secrets: string[];
}

/** The config_schema of a plugin's installed version and which of its keys are secrets. */
export class GetPluginConfigSchema {
  constructor(private readonly store: PluginStore) {}

  async execute(pluginId: string): Promise<PluginConfigSchemaView> {
    const schema = (await findPlugin(this.store, pluginId)).manifest.config_schema ?? null;
    return { schema, secrets: [...secretFields(schema ?? undefined)].sort() };
  }
}
