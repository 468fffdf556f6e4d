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
 * the backend verifies); the control token is kept because the backend presents it to the
 * agentctl on every catalog push. The MCP token is never stored.
 */
export interface SessionRecord extends SessionIdentity {
  status: SessionStatus;
  session_token_hash: string;
  control_token: string | null;
  control_url: string | null;
  mcp_url: string | null;
  /** True when the backend started the agentctl itself. */
  launched: boolean;
  agentctl_pid: number | null;
  created_at: string;
  updated_at: string;
}
