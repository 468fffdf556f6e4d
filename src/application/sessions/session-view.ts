import type { SessionRecord as SessionRecordAnswer } from '../../api';
import type { SessionRecord } from '../../domain/session';

/** A session as the operator API lists it (never a token): the record src/api declares. */
export type SessionView = SessionRecordAnswer;

export function sessionView(record: SessionRecord): SessionView {
  return {
    session_id: record.session_id,
    task_id: record.task_id,
    workspace_id: record.workspace_id,
    surface: record.surface,
    profile: record.profile,
    status: record.status,
    launched: record.launched,
    mcp_url: record.mcp_url,
    agentctl_pid: record.agentctl_pid,
    last_linked_at: record.last_linked_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
