import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePluginPackage } from './plugin-package';
import { pluginFolders } from '../processes/toolport-paths';

/**
 * A plugin that records every call it sees (tool, arguments, bound context, its pid) as one
 * JSON line in `<TOOLPORT_PLUGIN_DATA_DIR>/calls.jsonl`, so a test can tell whether a call
 * reached it. Tools: `add_tag` (answers the tag and the context), `peek` (plain text), `hang`
 * (waits for cancellation, then records `hang_aborted`), `crash` (exits the process mid-call).
 */
export const PROBE_SOURCE = `
import { serve } from '@toolport/plugin-sdk';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TOOLPORT_PLUGIN_DATA_DIR;
mkdirSync(dir, { recursive: true });
function record(tool, args, ctx) {
  const context = { task_id: ctx.taskId, session_id: ctx.sessionId, workspace_id: ctx.workspaceId, surface: ctx.surface };
  appendFileSync(join(dir, 'calls.jsonl'), JSON.stringify({ tool, args, context, pid: process.pid }) + '\\n');
  return context;
}
void serve({
  tools: {
    add_tag: (args, ctx) => {
      const context = record('add_tag', args, ctx);
      return { text: 'tagged ' + String(args.tag), structuredContent: { tag: String(args.tag), context } };
    },
    peek: (args, ctx) => {
      record('peek', args, ctx);
      return 'peeked';
    },
    hang: (args, ctx, signal) => {
      record('hang', args, ctx);
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => {
          record('hang_aborted', args, ctx);
          resolve({ text: 'aborted', isError: true });
        }),
      );
    },
    crash: (args, ctx) => {
      record('crash', args, ctx);
      setImmediate(() => process.exit(3));
      return new Promise(() => undefined);
    },
  },
});
`;

export const ADD_TAG_INPUT = {
  type: 'object',
  properties: { tag: { type: 'string', minLength: 1 }, note: { type: 'string' } },
  required: ['tag'],
};
export const ADD_TAG_OUTPUT = {
  type: 'object',
  properties: {
    tag: { type: 'string' },
    context: { type: 'object', properties: { task_id: { type: 'string' }, session_id: { type: 'string' } }, required: ['task_id', 'session_id'] },
  },
  required: ['tag', 'context'],
};

/** The probe's tool declarations, by local name. */
export const PROBE_TOOLS = {
  add_tag: {
    name: 'add_tag',
    title: 'Add tag',
    description: 'Adds a tag to the current task.',
    surfaces: ['kanban-task'],
    input_schema: ADD_TAG_INPUT,
    output_schema: ADD_TAG_OUTPUT,
    annotations: { idempotent_hint: true, open_world_hint: false },
  },
  peek: {
    name: 'peek',
    description: 'Looks at the task without changing it.',
    surfaces: ['office-task', 'kanban-task'],
    input_schema: { type: 'object', properties: {}, additionalProperties: true },
    annotations: { read_only_hint: true },
  },
  hang: {
    name: 'hang',
    description: 'Never answers until cancelled.',
    surfaces: ['kanban-task'],
    input_schema: { type: 'object' },
  },
  crash: {
    name: 'crash',
    description: 'Exits the plugin process in the middle of the call.',
    surfaces: ['kanban-task'],
    input_schema: { type: 'object' },
  },
} as const;

export type ProbeToolName = keyof typeof PROBE_TOOLS;

/** Writes a probe plugin package with the chosen tools into `dir`. */
export function writeProbePlugin(dir: string, id: string, tools: ProbeToolName[], version = '1.0.0', source = PROBE_SOURCE): string {
  return writePluginPackage(dir, {
    manifest: { api_version: 1, id, version, display_name: `Probe ${id}`, agent_tools: tools.map((name) => PROBE_TOOLS[name]) },
    source,
  });
}

export interface RecordedCall {
  tool: string;
  args: Record<string, unknown>;
  context: { task_id: string; session_id: string; workspace_id: string; surface: string };
  pid: number;
}

/** The calls a probe plugin recorded, read from its data dir under the backend's data dir. */
export function recordedCalls(dataDir: string, pluginId: string): RecordedCall[] {
  const file = join(pluginFolders(dataDir), 'plugin-data', pluginId, 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RecordedCall);
}
