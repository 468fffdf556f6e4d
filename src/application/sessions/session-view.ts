import type { SessionRecord, SessionStatus } from '../../domain/session';
import type { Surface } from '../../domain/surfaces';

/** A session as the operator API lists it (CONTRACT §9): never a token. */
export interface SessionView {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: Surface;
  status: SessionStatus;
  launched: boolean;
  mcp_url: string | null;
  agentctl_pid: number | null;
  /** When its agentctl last linked to the backend; null before it ever did. */
  last_linked_at: string | null;
  created_at: string;
  updated_at: string;
}

export function sessionView(record: SessionRecord): SessionView {
  return {
    session_id: record.session_id,
    task_id: record.task_id,
    workspace_id: record.workspace_id,
    surface: record.surface,
    status: record.status,
    launched: record.launched,
    mcp_url: record.mcp_url,
    agentctl_pid: record.agentctl_pid,
    last_linked_at: record.last_linked_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
