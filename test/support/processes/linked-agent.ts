import type { McpAgent } from '../clients/mcp-agent';
import { eventually } from '../eventually';
import type { BackendWorld, StartedSession } from './backend-world';

/** Whether a launched agentctl logged (to its backend's stderr) that its link to the backend is up. */
function hasLinked(stderr: string, sessionId: string): boolean {
  return stderr.split('\n').some((line) => {
    if (!line.includes('connected to the backend')) return false;
    const record = JSON.parse(line) as { msg?: string; session_id?: string };
    return record.msg === 'connected to the backend' && record.session_id === sessionId;
  });
}

/**
 * An agent on a launched session once its agentctl's link is up. The session answers as soon
 * as the agentctl serves MCP, and the link (a SCRAM exchange, then hello) follows: a plugin
 * call made in between is refused `[BACKEND_UNAVAILABLE] … not sent`, which a test about
 * something else must not trip on.
 */
export async function linkedAgent(world: BackendWorld, session: StartedSession, name?: string): Promise<McpAgent> {
  const backend = world.backend;
  await eventually(() => hasLinked(backend.stderr(), session.session_id), 10_000, `the agentctl of session ${session.session_id} to link`);
  return world.agent(session, name);
}
