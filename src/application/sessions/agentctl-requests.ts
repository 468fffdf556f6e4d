import type { CatalogSnapshot } from '../../domain/catalog';
import { ToolportError } from '../../domain/errors';
import { viewOf } from '../../domain/scopes';
import type { LinkedSession, SessionIdentity } from '../../domain/session';
import type { CatalogFanOut } from '../catalog/catalog-fan-out';
import type { InvokeAgentTool } from '../invocation/invoke-agent-tool';
import type { RecordRefusedCall } from '../invocation/record-refused-call';
import type { AgentctlHello, AskClient, PluginToolAnswer, PluginToolRequest, RefusedCallReport } from '../ports/link-messages';
import { LinkRefusal } from '../link/link-refusal';
import type { AuthenticateSession, LinkChallenge } from './authenticate-session';
import type { RegisterAgentctl } from './register-agentctl';
import type { SessionLiveness } from './session-liveness';

/**
 * What an agentctl's link may ask of the backend (docs/agentctl.md §7), the inbound port a link
 * endpoint drives. The identity of every request is the one its link authenticated as.
 */
export class AgentctlRequests {
  constructor(
    private readonly authenticateSession: AuthenticateSession,
    private readonly registerAgentctl: RegisterAgentctl,
    private readonly fanOut: CatalogFanOut,
    private readonly liveness: SessionLiveness,
    private readonly invokeAgentTool: InvokeAgentTool,
    private readonly recordRefusedCall: RecordRefusedCall,
  ) {}

  /** The proof's first step: the challenge to send. Throws LinkRefusal when the session cannot link. */
  authBegin(opening: string): Promise<{ reply: string; challenge: LinkChallenge }> {
    return this.authenticateSession.begin(opening);
  }

  /**
   * The proof's second step: the backend's own proof and the session the link is bound to, its
   * profile included (from the store, so no payload can claim another). Throws LinkRefusal.
   */
  async authFinish(challenge: LinkChallenge, proof: string): Promise<{ reply: string; session: LinkedSession }> {
    const { reply, session } = await this.authenticateSession.finish(challenge, proof);
    const { task_id, session_id, workspace_id, surface, profile } = session;
    return { reply, session: { task_id, session_id, workspace_id, surface, profile } };
  }

  /** `agentctl.hello`: the session is live and linked now. Throws LinkRefusal SESSION_STOPPED for a session ended since. */
  async hello(session: LinkedSession, _hello: AgentctlHello): Promise<SessionIdentity> {
    const bound = await this.registerAgentctl.execute(session.session_id).catch((error: unknown) => {
      if (error instanceof ToolportError && error.code === 'UNAUTHORIZED') throw new LinkRefusal('SESSION_STOPPED', error.message);
      throw error;
    });
    this.liveness.linkUp(session.session_id);
    this.fanOut.linked(session.session_id, viewOf(session));
    return bound;
  }

  /**
   * The current snapshot as the session's view sees it (the whole catalog's generation and
   * revision, its effective tools only), which it then holds.
   */
  async snapshot(session: LinkedSession): Promise<CatalogSnapshot> {
    return this.fanOut.serve(session.session_id, viewOf(session));
  }

  /** One checked plugin call; throws InvocationError on a refusal or failure. */
  /**
   * `onHold`: told when an approval rule holds the call and when it is released; `askClient`:
   * asks the agentctl's client under a `client` rule (InvokeAgentToolInput).
   */
  invoke(
    session: LinkedSession,
    request: PluginToolRequest,
    signal: AbortSignal,
    onHold?: (held: boolean, waitMs: number) => void,
    askClient?: AskClient,
  ): Promise<PluginToolAnswer> {
    return this.invokeAgentTool.execute({ ...request, session, signal, ...(onHold ? { onHold } : {}), ...(askClient ? { askClient } : {}) });
  }

  /** `mcp.report_refused_call`: a call the agentctl refused itself, recorded for the log, metrics and console. */
  refused(session: SessionIdentity, report: RefusedCallReport): void {
    this.recordRefusedCall.execute(session, report);
  }

  /** `agentctl.goodbye`: the agentctl is exiting cleanly; its session is dead now. */
  goodbye(session: SessionIdentity): Promise<void> {
    return this.liveness.goodbye(session.session_id);
  }

  /** The session's link closed for good (not replaced): the grace period starts. */
  linkClosed(session: SessionIdentity): void {
    this.fanOut.unlinked(session.session_id);
    this.liveness.linkDown(session.session_id);
  }
}

/** The requests a link endpoint needs answered; a test can stand in for the backend with its own. */
export type AgentctlRequestHandler = Pick<
  AgentctlRequests,
  'authBegin' | 'authFinish' | 'hello' | 'snapshot' | 'invoke' | 'refused' | 'goodbye' | 'linkClosed'
>;
