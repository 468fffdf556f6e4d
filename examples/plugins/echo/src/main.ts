import { serve, type ToolContext, type ToolResult } from '@toolport/plugin-sdk';

/** The `echo` tool: the message back, and the context the host bound (never from the arguments). */
function echo(args: Record<string, unknown>, context: ToolContext): ToolResult {
  const message = String(args.message);
  const bound = {
    task_id: context.taskId,
    session_id: context.sessionId,
    workspace_id: context.workspaceId,
    surface: context.surface,
  };
  return {
    text: `${message}\n(task ${bound.task_id}, session ${bound.session_id}, workspace ${bound.workspace_id}, surface ${bound.surface})`,
    structuredContent: { message, context: bound, invocation_id: context.invocationId },
  };
}

void serve({ tools: { echo } });
