import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WsAgentctlEndpoint } from '../../../src/adapters/websocket/ws-agentctl-endpoint';
import { WsBackendLink } from '../../../src/adapters/websocket/ws-backend-link';
import { describeBackendLinkContract } from '../../contracts/backend-link.contract';
import { CapturingLogger } from '../../support/capturing-logger';
import { ScriptedBackend } from '../../support/test-backend';

/** The backend's real §7 endpoint in front of a scripted core: proves both ends share one wire. */
class EndpointBackend {
  private http: Server | null = null;
  private endpoint: WsAgentctlEndpoint | null = null;
  port = 0;

  constructor(readonly backend: ScriptedBackend) {}

  async listen(port = this.port): Promise<void> {
    const endpoint = new WsAgentctlEndpoint(
      {
        authenticate: (token) => (token === 'session-token' ? { ...this.backend.identity } : undefined),
        hello: (_session, hello) => void this.backend.hello(hello),
        linkClosed: () => undefined,
        snapshot: () => this.backend.snapshot,
        invoke: (_session, request, signal) => this.backend.invokePluginTool(request, signal),
      },
      new CapturingLogger(),
    );
    const http = createServer();
    endpoint.attach(http);
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', () => resolve()));
    this.http = http;
    this.endpoint = endpoint;
    this.port = (http.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.endpoint?.close();
    const http = this.http;
    this.http = null;
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
}

describeBackendLinkContract([
  [
    'websocket against the backend endpoint',
    async () => {
      const server = new EndpointBackend(new ScriptedBackend());
      await server.listen();
      const link = new WsBackendLink({
        backendUrl: `http://127.0.0.1:${server.port}`,
        sessionToken: 'session-token',
        requestTimeoutMs: 2000,
        invokeTimeoutMs: 5000,
        logger: new CapturingLogger(),
        initialBackoffMs: 20,
        maxBackoffMs: 200,
      });
      return {
        link,
        backend: server.backend,
        goDown: () => server.stop(),
        comeBack: () => server.listen(),
        cleanup: async () => {
          await link.close();
          await server.stop();
        },
      };
    },
  ],
]);
