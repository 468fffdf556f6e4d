import type { Surface } from './surfaces';

/** The identity an agentctl was launched for; the backend binds it from the session token. */
export interface SessionIdentity {
  task_id: string;
  session_id: string;
  workspace_id: string;
  surface: Surface;
}

const SESSION_STATUSES = ['starting', 'live', 'dead', 'stopped'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * A session as the backend stores it. Only the hash of the session token is kept (it is what
 * the backend verifies); the MCP token is never stored.
 */
export interface SessionRecord extends SessionIdentity {
  status: SessionStatus;
  session_token_hash: string;
  mcp_url: string | null;
  /** True when the backend started the agentctl itself. */
  launched: boolean;
  agentctl_pid: number | null;
  /** When its agentctl last linked (said hello); null before the first link. */
  last_linked_at: string | null;
  /** When its link dropped; null while the link is up (or it never linked). */
  link_down_since: string | null;
  created_at: string;
  updated_at: string;
}
