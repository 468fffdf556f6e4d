import { ToolportError } from '../../domain/errors';
import type { SessionIdentity, SessionRecord } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { PluginStore } from '../ports/plugin-store';

export interface RegisterAgentctlInput {
  /** The session the link authenticated as. */
  sessionId: string;
  /** Where the agentctl's control API listens. */
  controlUrl: string;
  /** Its bearer token, for an agentctl started elsewhere (the backend made the others'). */
  controlToken?: string;
}

/**
 * `agentctl.hello`: records where the session's agentctl takes catalog pushes and marks the
 * session `live`; answers the bound identity. UNAUTHORIZED when the session has ended.
 */
export class RegisterAgentctl {
  constructor(
    private readonly store: PluginStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(input: RegisterAgentctlInput): Promise<SessionIdentity> {
    const session = await this.store.getSession(input.sessionId);
    if (!session || (session.status !== 'live' && session.status !== 'starting')) {
      throw new ToolportError('UNAUTHORIZED', 'unknown or ended session');
    }
    const next: SessionRecord = {
      ...session,
      status: 'live',
      control_url: input.controlUrl,
      control_token: input.controlToken ?? session.control_token,
      updated_at: this.clock.isoNow(),
    };
    await this.store.saveSession(next);
    this.logger.info({ session_id: session.session_id }, 'agentctl connected');
    return { task_id: session.task_id, session_id: session.session_id, workspace_id: session.workspace_id, surface: session.surface };
  }
}
