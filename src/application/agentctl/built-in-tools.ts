import type { CatalogTool } from '../../domain/catalog';
import type { JsonObject } from '../../domain/json';
import type { ToolAnnotations } from '../../domain/manifest';
import { SESSION_SURFACES } from '../../domain/surfaces';

/** A tool agentctl serves itself: named and described like a catalog tool, from no plugin. */
export interface BuiltInTool {
  exposed_name: string;
  title?: string;
  description: string;
  input_schema: JsonObject;
  output_schema?: JsonObject;
  annotations: ToolAnnotations;
}

/** A tool as the agent's list shows it: a built-in, or a catalog tool visible on the session's surface. */
export type ListedTool = BuiltInTool | CatalogTool;

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
export const BUILT_IN_TOOLS: readonly BuiltInTool[] = [
  {
    exposed_name: GET_TASK_CONTEXT,
    title: 'Get task context',
    description: 'Returns the task, session and workspace this agent works on, and the kind of task session (surface).',
    input_schema: { type: 'object', properties: {}, additionalProperties: false },
    output_schema: TASK_CONTEXT_SCHEMA,
    annotations: { read_only_hint: true, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
  },
];
