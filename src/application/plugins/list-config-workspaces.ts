import type { PluginConfigWorkspaces } from '../../api';
import type { PluginRecords } from '../ports/plugin-records';
import { findPlugin } from './find-plugin';

/** The workspaces of a plugin that have configuration overrides, in workspace id byte order. */
export class ListConfigWorkspaces {
  constructor(private readonly store: PluginRecords) {}

  async execute(pluginId: string): Promise<PluginConfigWorkspaces> {
    await findPlugin(this.store, pluginId);
    return { workspaces: (await this.store.listWorkspaceConfigs(pluginId)).map((entry) => entry.workspaceId) };
  }
}
