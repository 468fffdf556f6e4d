import type { Container } from 'inversify';
import type { PrometheusMetrics, InvocationOutcome } from '../adapters/metrics/prometheus-metrics';
import { WsAgentctlEndpoint } from '../adapters/websocket/ws-agentctl-endpoint';
import { CatalogService } from '../application/catalog/catalog-service';
import { InvokeAgentTool } from '../application/invocation/invoke-agent-tool';
import type { Logger } from '../application/ports/logger';
import { PluginStore } from '../application/ports/plugin-store';
import { AuthenticateSession } from '../application/sessions/authenticate-session';
import { RegisterAgentctl } from '../application/sessions/register-agentctl';
import { InvocationError } from '../domain/errors';

/** Binds the §7 endpoint to the session and invocation use cases. */
export function agentctlEndpoint(container: Container, logger: Logger, metrics: PrometheusMetrics): WsAgentctlEndpoint {
  const authenticate = container.get(AuthenticateSession);
  const register = container.get(RegisterAgentctl);
  const catalog = container.get(CatalogService);
  const invoke = container.get(InvokeAgentTool);
  const store = container.get(PluginStore);
  return new WsAgentctlEndpoint(
    {
      authenticate(token) {
        try {
          const { task_id, session_id, workspace_id, surface } = authenticate.execute(token);
          return { task_id, session_id, workspace_id, surface };
        } catch {
          return undefined;
        }
      },
      hello(session, hello) {
        register.execute({ sessionId: session.session_id, controlUrl: hello.control_url, controlToken: hello.control_token });
      },
      linkClosed() {
        // A link drop is not a death: the agentctl reconnects. Its exit marks it dead.
      },
      snapshot: () => catalog.current(),
      async invoke(session, request, signal) {
        const started = performance.now();
        let outcome: InvocationOutcome = 'error';
        try {
          // The status is read now, so a session stopped since the link opened fails closed.
          const status = store.getSession(session.session_id)?.status;
          if (!status) throw new InvocationError('SESSION_NOT_LIVE', 'FORBIDDEN', 'the session no longer exists');
          const result = await invoke.execute({ session: { ...session, status }, pluginId: request.plugin_id, localName: request.local_name, arguments: request.arguments, signal });
          outcome = result.is_error ? 'tool_error' : 'success';
          return result;
        } catch (error) {
          if (signal.aborted || (error instanceof InvocationError && error.code === 'CANCELLED')) outcome = 'cancelled';
          throw error;
        } finally {
          metrics.recordInvocation(request.plugin_id, outcome, (performance.now() - started) / 1000);
        }
      },
    },
    logger.child({ component: 'agentctl-ws' }),
  );
}
