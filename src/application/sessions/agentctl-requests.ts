import type { CatalogSnapshot } from '../../domain/catalog';
import type { SessionIdentity } from '../../domain/session';
import type { CatalogService } from '../catalog/catalog-service';
import type { InvokeAgentTool } from '../invocation/invoke-agent-tool';
import type { AgentctlHello, PluginToolAnswer, PluginToolRequest } from '../link/link-messages';
import type { AuthenticateSession } from './authenticate-session';
import type { RegisterAgentctl } from './register-agentctl';

/**
 * What an agentctl's link may ask of the backend (CONTRACT §7), the inbound port a link
 * endpoint drives. The identity of every request is the one its session token is bound to.
 */
export class AgentctlRequests {
  constructor(
    private readonly authenticateSession: AuthenticateSession,
    private readonly registerAgentctl: RegisterAgentctl,
    private readonly catalog: CatalogService,
    private readonly invokeAgentTool: InvokeAgentTool,
  ) {}

  /** The session a session token belongs to while it is starting or live; undefined otherwise. */
  async authenticate(sessionToken: string): Promise<SessionIdentity | undefined> {
    try {
      const { task_id, session_id, workspace_id, surface } = await this.authenticateSession.execute(sessionToken);
      return { task_id, session_id, workspace_id, surface };
    } catch {
      return undefined;
    }
  }

  /** `agentctl.hello`: the session is live and its control API known. Throws UNAUTHORIZED for an ended session. */
  async hello(session: SessionIdentity, hello: AgentctlHello): Promise<SessionIdentity> {
    return this.registerAgentctl.execute({ sessionId: session.session_id, controlUrl: hello.controlUrl, controlToken: hello.controlToken });
  }

  /** `mcp.list_plugin_tools`: the full current snapshot (agentctl filters by surface). */
  async snapshot(_session: SessionIdentity): Promise<CatalogSnapshot> {
    return this.catalog.current();
  }

  /** `mcp.invoke_plugin_tool`: one checked plugin call; throws InvocationError on a refusal or failure. */
  invoke(session: SessionIdentity, request: PluginToolRequest, signal: AbortSignal): Promise<PluginToolAnswer> {
    return this.invokeAgentTool.execute({ ...request, session, signal });
  }

  /** The session's link closed for good (not replaced). A drop is not a death: the agentctl reconnects. */
  linkClosed(_session: SessionIdentity): void {}
}

/** The requests a link endpoint needs answered; a test can stand in for the backend with its own. */
export type AgentctlRequestHandler = Pick<AgentctlRequests, 'authenticate' | 'hello' | 'snapshot' | 'invoke' | 'linkClosed'>;
