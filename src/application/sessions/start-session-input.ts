import type { Surface } from '../../domain/surfaces';

/** A session to open: its task and workspace, the kind of task session, and whether the backend launches its agentctl. */
export interface StartSessionRequest {
  task_id: string;
  workspace_id: string;
  surface: Surface;
  /** Launch an agentctl for it (the default), or answer what one started elsewhere needs. */
  launch?: boolean;
}
