import type { Surface } from './surfaces';

/** The identity an agentctl was launched for; the backend binds it from the session token. */
export interface SessionIdentity {
  task_id: string;
  session_id: string;
  workspace_id: string;
  surface: Surface;
}

/**
 * A session as its link is bound on the backend: the identity plus the name of its profile,
 * which, with its workspace and surface, decides the tools it sees (docs/catalog-and-sessions.md,
 * "Scopes"). The profile comes from the stored session, never from a payload.
 */
export interface LinkedSession extends SessionIdentity {
  profile: string;
}

export const SESSION_STATUSES = ['starting', 'live', 'dead', 'stopped'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * A session as the backend stores it. The session token itself is never kept: its SHA-256
 * names the session on the link, and its verifier is what the backend checks the agentctl's
 * proof against and proves itself with (the LinkProof port). The MCP token is never stored.
 */
export interface SessionRecord extends SessionIdentity {
  /**
   * The name of the session's profile, fixed when it starts (`default` unless given); edits to
   * that profile apply to the session at once (docs/catalog-and-sessions.md, "Scopes").
   */
  profile: string;
  status: SessionStatus;
  /** SHA-256 hex of the session token: the name the agentctl's link proof gives. */
  session_token_hash: string;
  /** What LinkProof.verifierFor made; empty for a session started before links proved themselves. */
  session_verifier: string;
  mcp_url: string | null;
  /** True when the backend started the agentctl itself. */
  launched: boolean;
  agentctl_pid: number | null;
  /** The launched agentctl's start time (/proc stat field 22), so a reused pid is never signalled. */
  agentctl_start_time: number | null;
  /**
   * On a store replicas share: the replica that follows its agentctl, the one that launched it
   * or last held its link (docs/operations.md §10); a live replica adopts those of one that is
   * gone. Null on a backend alone.
   */
  agentctl_replica: string | null;
  /** When its agentctl last linked (said hello); null before the first link. */
  last_linked_at: string | null;
  /** When its link dropped; null while the link is up (or it never linked). */
  link_down_since: string | null;
  created_at: string;
  updated_at: string;
}
