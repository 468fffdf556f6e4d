import type { AgentctlSession } from './session-identity';
import { toolFailure, type ToolCallResult } from './tool-call-result';

/** The built-in `get_task_context`: who this session is, as structured content. */
export class GetTaskContext {
  constructor(
    private readonly session: AgentctlSession,
    private readonly waitMs: number,
  ) {}

  async execute(): Promise<ToolCallResult> {
    const identity = await this.session.whenKnown(this.waitMs);
    if (identity === null) return toolFailure('BACKEND_UNAVAILABLE', 'the session identity is not known yet: agentctl has not reached the backend');
    const context = {
      task_id: identity.task_id,
      session_id: identity.session_id,
      workspace_id: identity.workspace_id,
      surface: identity.surface,
    };
    return { kind: 'answer', text: JSON.stringify(context), structuredContent: context, isError: false };
  }
}
