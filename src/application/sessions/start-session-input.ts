import type { Surface } from '../../domain/surfaces';

/** A session to open: its task and workspace, the kind of task session, and whether the backend launches its agentctl. */
export interface StartSessionRequest {
  task_id: string;
  workspace_id: string;
  surface: Surface;
  /** The name of the session's profile; `default` when absent (docs/catalog-and-sessions.md, "Scopes"). */
  profile?: string;
  /** Launch an agentctl for it (the default), or answer what one started elsewhere needs. */
  launch?: boolean;
}
