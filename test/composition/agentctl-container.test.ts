import { McpHttpServer } from '../../src/adapters/mcp/mcp-http-server';
import { AnnounceReadiness } from '../../src/application/agentctl/announce-readiness';
import { ApplyLaunchSnapshot } from '../../src/application/agentctl/apply-launch-snapshot';
import { CallTool } from '../../src/application/agentctl/call-tool';
import { FollowBackend } from '../../src/application/agentctl/follow-backend';
import { ListTools } from '../../src/application/agentctl/list-tools';
import { BackendLink } from '../../src/application/ports/backend-link';
import { DEFAULT_SETTINGS } from '../../src/application/settings';
import { McpStdioServer } from '../../src/adapters/mcp/mcp-stdio-server';
import { createAgentctlContainer } from '../../src/composition/agentctl-container';
import { Disposals } from '../../src/composition/disposals';
import { CapturingLogger } from '../support/capturing-logger';
import { RecordingTracer } from '../support/recording-tracer';
import { TEST_IDENTITY, TestBackendServer, waitUntil } from '../support/test-backend';

describe('the agentctl container', () => {
  let backend: TestBackendServer;
  beforeEach(async () => {
    backend = await TestBackendServer.start();
  });
  afterEach(() => backend.stop());

  function container(tracer: RecordingTracer) {
    return createAgentctlContainer({
      settings: DEFAULT_SETTINGS,
      logger: new CapturingLogger(),
      version: '0.0.0-test',
      launchedAs: TEST_IDENTITY,
      backend: { url: backend.url, sessionToken: backend.sessionToken },
      http: { host: '127.0.0.1', port: 0, serveMcp: true, mcpToken: 'mcp', controlToken: '', serveControlApi: false, allowedOrigins: [] },
      stdio: false,
      firstSnapshotWaitMs: 100,
      invokeMarginMs: 0,
      tracer,
    });
  }

  it('resolves every piece the entry point uses, each once', () => {
    const c = container(new RecordingTracer());
    for (const token of [ApplyLaunchSnapshot, FollowBackend, AnnounceReadiness, McpHttpServer, McpStdioServer, ListTools, CallTool, BackendLink]) {
      expect(c.get(token)).toBe(c.get(token));
    }
  });

  it('closes in reverse order of binding: goodbye on the link first, then the MCP server, then the last spans', async () => {
    const tracer = new RecordingTracer();
    const shutdowns: Array<{ goodbyes: number; listening: boolean }> = [];
    const c = container(tracer);
    const http = c.get(McpHttpServer);
    const { baseUrl } = await http.listen();
    const reachable = () =>
      fetch(`${baseUrl}/healthz`).then(
        () => true,
        () => false,
      );
    tracer.shutdown = async () => void shutdowns.push({ goodbyes: backend.backend.goodbyes.length, listening: await reachable() });
    c.get(FollowBackend).execute({}, () => undefined);
    await waitUntil(() => c.get(BackendLink).isConnected(), 2000, 'the link');
    await c.get(Disposals).disposeAll();
    expect(backend.backend.goodbyes).toHaveLength(1);
    expect(shutdowns).toEqual([{ goodbyes: 1, listening: false }]);
    expect(c.get(BackendLink).isConnected()).toBe(false);
  });
});
