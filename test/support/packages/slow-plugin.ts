import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePluginPackage } from './plugin-package';
import { pluginFolders } from '../processes/toolport-paths';

/**
 * A plugin whose `work` tool appends each invocation id to `invocations.log` in its data dir
 * (so a test can tell how often the plugin saw a call), then waits `ms` (or until cancelled).
 */
export const SLOW_PLUGIN_SOURCE = `
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '@toolport/plugin-sdk';
const log = join(process.env.TOOLPORT_PLUGIN_DATA_DIR ?? '.', 'invocations.log');
void serve({
  tools: {
    work: async (args, context, signal) => {
      appendFileSync(log, context.invocationId + '\\n');
      const ms = typeof args.ms === 'number' ? args.ms : 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
      return { text: 'done ' + context.invocationId, structuredContent: { invocation_id: context.invocationId, pid: process.pid } };
    },
  },
});
`;

export const WORK_TOOL = {
  name: 'work',
  description: 'Records the call, waits, answers.',
  surfaces: ['kanban-task', 'office-task'],
  input_schema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 }, n: { type: 'integer' } } },
  output_schema: {
    type: 'object',
    properties: { invocation_id: { type: 'string' }, pid: { type: 'integer' } },
    required: ['invocation_id', 'pid'],
  },
};

/** The invocation ids the slow plugin `pluginId` recorded, in order. */
export function invocationLog(dataDir: string, pluginId: string): string[] {
  const file = join(pluginFolders(dataDir), 'plugin-data', pluginId, 'invocations.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

export function invocationCount(dataDir: string, pluginId: string): number {
  return invocationLog(dataDir, pluginId).length;
}

export function writeSlowPlugin(dir: string, id: string, version = '1.0.0'): string {
  return writePluginPackage(dir, { manifest: { api_version: 1, id, version, agent_tools: [WORK_TOOL] }, source: SLOW_PLUGIN_SOURCE });
}

/** The exposed name under the default prefix (ids in these tests have only [a-z0-9.]). */
export function exposed(pluginId: string, local: string): string {
  return `kandev_${pluginId.replace(/[^a-z0-9_]/g, '_')}_${local}`;
}
