import { join } from 'node:path';
import { connectSdkClient } from '../../agentctl/sdk-clients';
import { OtlpReceiver } from '../../support/otlp-receiver';
import { writeTracedPlugin } from '../../support/packages/traced-plugin';
import { BackendWorld } from '../../support/processes/backend-world';

jest.setTimeout(30_000);

describe('traces on shutdown (docs/operations.md §8)', () => {
  it('exports the spans still batched when the backend gets SIGTERM, and every process exits in time', async () => {
    const receiver = await new OtlpReceiver().start();
    const world = new BackendWorld(['--plugin-start-timeout-ms', '10000']);
    try {
      // A batch delay far beyond the test: only the shutdown flush can send these spans.
      await world.start({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '600000' } });
      await world.install(writeTracedPlugin(join(world.root, 'pkg-traced'), 'e2e.traced'), ['network']);
      const session = await world.session('kanban-task');
      const client = await connectSdkClient('v1', { http: session.mcp!.url, token: session.mcp!.token });
      const traceId = 'c'.repeat(32);
      await client.callTool('kandev_e2e_traced_echo', { s: 'x' }, undefined, { traceparent: `00-${traceId}-${'d'.repeat(16)}-01` });
      await client.close();
      expect(receiver.exports).toEqual([]);

      const started = Date.now();
      const { exitCode, outlived, swept } = await world.gracefulTeardown();
      expect({ exitCode, outlived, swept }).toEqual({ exitCode: 0, outlived: [], swept: [] });
      expect(Date.now() - started).toBeLessThan(10_000);
      const services = receiver
        .spans()
        .filter((span) => span.traceId === traceId)
        .map((span) => `${span.service} ${span.name}`);
      expect(services.sort()).toEqual([
        'toolport-agentctl tools/call',
        'toolport-backend mcp.invoke_plugin_tool',
        'toolport-backend toolport.plugin.v1.Plugin/InvokeAgentTool',
      ]);
    } finally {
      await world.teardown();
      await receiver.close();
    }
  });
});
