import type { PluginConfig } from '../../api';
import { maskConfiguration } from '../../domain/config-fields';
import { ToolportError } from '../../domain/errors';
import { workspaceIdProblem } from '../../domain/workspace-id';
import type { PluginRecords } from '../ports/plugin-records';
import { SecretUnreadableError } from '../ports/secret-box';
import { findPlugin } from './find-plugin';
import { openWorkspaceConfiguration } from './plugin-configuration';
import type { WorkspaceConfigDeps } from './workspace-configuration';

/** Reads one workspace's configuration overrides for the operator (`{}` for none); secrets never leave masked. */
export class GetWorkspaceConfig {
  constructor(
    private readonly store: PluginRecords,
    private readonly deps: WorkspaceConfigDeps,
  ) {}

  async execute(pluginId: string, workspaceId: string): Promise<PluginConfig> {
    const problem = workspaceIdProblem(workspaceId);
    if (problem !== null) throw new ToolportError('BAD_REQUEST', `workspace ${problem}`);
    const record = await findPlugin(this.store, pluginId);
    try {
      const values = openWorkspaceConfiguration(this.deps.secrets, pluginId, workspaceId, await this.store.getWorkspaceConfig(pluginId, workspaceId));
      return { values: maskConfiguration(record.manifest.config_schema, values) };
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      throw new ToolportError(
        'INTERNAL',
        `the overrides of this workspace cannot be decrypted with this backend's secret key (key id ${error.keyId}); set them again`,
      );
    }
  }
}
