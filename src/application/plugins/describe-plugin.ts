import type { PluginDetails } from '../../api';
import { exposedToolName } from '../../domain/naming';
import type { PluginRecords } from '../ports/plugin-records';
import type { Settings } from '../settings';
import { findPlugin } from './find-plugin';
import type { PluginViews } from './plugin-views';
import type { RunningPlugins } from './running-plugins';

/** One installed plugin in detail for its author or operator; NOT_FOUND otherwise. */
export class DescribePlugin {
  constructor(
    private readonly store: PluginRecords,
    private readonly running: RunningPlugins,
    private readonly views: PluginViews,
    private readonly settings: Settings,
  ) {}

  async execute(pluginId: string): Promise<PluginDetails> {
    const record = await findPlugin(this.store, pluginId);
    const instance = this.running.instanceOf(record.id);
    const view = await this.views.one(record);
    return {
      ...view,
      agent_tools: record.manifest.agent_tools.map((tool) => ({ ...tool, exposed_name: exposedToolName(this.settings.toolPrefix, record.id, tool.name) })),
      network: instance?.network ?? null,
      process: { pid: view.pid, started_at: instance?.startedAt?.() ?? null },
    };
  }
}
