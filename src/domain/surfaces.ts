/** The kinds of task session (the words of docs/catalog-and-sessions.md). */
export const SESSION_SURFACES = ['kanban-task', 'office-task', 'configuration', 'external'] as const;
/** The surfaces an agent tool may declare; the others never see plugin tools. */
const TOOL_SURFACES = ['kanban-task', 'office-task'] as const;

export type Surface = (typeof SESSION_SURFACES)[number];
export type ToolSurface = (typeof TOOL_SURFACES)[number];

export function isSurface(value: unknown): value is Surface {
  return typeof value === 'string' && (SESSION_SURFACES as readonly string[]).includes(value);
}

export function isToolSurface(value: unknown): value is ToolSurface {
  return typeof value === 'string' && (TOOL_SURFACES as readonly string[]).includes(value);
}
