import type { SessionStatus, Surface } from './domain-shapes';

/** A session as `GET /api/v1/sessions` lists it: never a token. */
export interface SessionRecord {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: Surface;
  /** The name of its profile, fixed when it started (docs/catalog-and-sessions.md, "Scopes"). */
  profile: string;
  status: SessionStatus;
  /** Whether the backend started its agentctl. */
  launched: boolean;
  /** Null for an agentctl started elsewhere. */
  mcp_url: string | null;
  agentctl_pid: number | null;
  /** When its agentctl last linked; null before it ever did. */
  last_linked_at: string | null;
  created_at: string;
  updated_at: string;
}

/** `POST /api/v1/sessions/prune`: how many stopped sessions were removed. */
export interface SessionsPruned {
  removed: number;
}

/** `POST /api/v1/sessions`: the one answer that holds the session's tokens. */
export interface StartedSession {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: Surface;
  profile: string;
  status: SessionStatus;
  /** With `launch` (the default): where the agent connects. */
  mcp?: { url: string; token: string };
  /** With `launch: false`: what an agentctl started elsewhere needs. */
  agentctl?: { backend_url: string; session_token: string };
}
