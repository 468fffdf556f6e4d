import type { JsonObject } from '../../domain/json';
import type { McpTool } from '../../domain/snapshot-application';
import { SESSION_SURFACES } from '../../domain/surfaces';

/** A tool as `tools/list` shows it: plugin tools carry `_meta`, built-ins do not. */
export type ListedTool = Omit<McpTool, '_meta'> & { _meta?: McpTool['_meta'] };

export const GET_TASK_CONTEXT = 'get_task_context';

const TASK_CONTEXT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    task_id: { type: 'string' },
    session_id: { type: 'string' },
    workspace_id: { type: 'string' },
    surface: { type: 'string', enum: [...SESSION_SURFACES] },
  },
  required: ['task_id', 'session_id', 'workspace_id', 'surface'],
  additionalProperties: false,
};

/** The tools agentctl always serves, whatever the catalog holds. */
export const BUILT_IN_TOOLS: readonly ListedTool[] = [
  {
    name: GET_TASK_CONTEXT,
    title: 'Get task context',
    description: 'Returns the task, session and workspace this agent works on, and the kind of task session (surface).',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: TASK_CONTEXT_SCHEMA,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
];
