import { InMemoryBackendLink } from '../../../src/adapters/memory/in-memory-backend-link';
import { WsBackendLink } from '../../../src/adapters/websocket/ws-backend-link';
import { describeBackendLinkContract } from '../../contracts/backend-link.contract';
import { CapturingLogger } from '../../support/capturing-logger';
import { linkCredentials, ScriptedBackend, TestBackendServer } from '../../support/test-backend';

describeBackendLinkContract([
  [
    'in-memory',
    async () => {
      const backend = new ScriptedBackend();
      const link = new InMemoryBackendLink(backend, linkCredentials(backend.sessionToken));
      return {
        link,
        backend,
        goDown: async () => link.setReachable(false),
        comeBack: async () => link.setReachable(true),
        cleanup: () => link.close(),
      };
    },
  ],
  [
    'websocket',
    async () => {
      const server = await TestBackendServer.start();
      const link = new WsBackendLink({
        backendUrl: server.url,
        sessionToken: server.sessionToken,
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
        comeBack: () => server.restart(),
        cleanup: async () => {
          await link.close();
          await server.stop();
        },
      };
    },
  ],
]);
