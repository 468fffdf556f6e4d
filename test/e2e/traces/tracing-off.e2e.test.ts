import { join } from 'node:path';
import { connectSdkClient } from '../../agentctl/sdk-clients';
import { OtlpReceiver } from '../../support/otlp-receiver';
import { writeTracedPlugin } from '../../support/packages/traced-plugin';
import { BackendWorld } from '../../support/processes/backend-world';

jest.setTimeout(30_000);

/** Where an OpenTelemetry SDK exports OTLP/HTTP when no endpoint is configured. */
const DEFAULT_OTLP_PORT = 4318;

/** The OpenTelemetry default endpoint's port when it is free here, so a default export would land in the receiver; else any. */
async function receiverOnDefaultPort(): Promise<OtlpReceiver> {
  try {
    return await new OtlpReceiver().start(DEFAULT_OTLP_PORT);
  } catch {
    return new OtlpReceiver().start(0);
  }
}

describe('traces off: without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported anywhere (docs/operations.md §8)', () => {
  it('sends no span for a traced call, not even to the default endpoint, up to the backend exit', async () => {
    expect(Object.keys(process.env).filter((key) => key.startsWith('OTEL_EXPORTER_OTLP_') && key.endsWith('ENDPOINT'))).toEqual([]);
    const receiver = await receiverOnDefaultPort();
    const world = new BackendWorld(['--plugin-start-timeout-ms', '10000']);
    try {
      // The other standard variables are set: only the endpoint turns tracing on.
      await world.start({ env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' } });
      await world.install(writeTracedPlugin(join(world.root, 'pkg-traced'), 'e2e.traced'), ['network']);
      const session = await world.session('kanban-task');
      const client = await connectSdkClient('v1', { http: session.mcp!.url, token: session.mcp!.token });
      const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
      expect((await client.callTool('kandev_e2e_traced_echo', { s: 'x' }, undefined, { traceparent })).content[0]?.text).toBe('echo x');
      await client.close();
      // A graceful stop flushes whatever a tracer holds: once every process has exited, nothing more can come.
      const { exitCode, outlived, swept } = await world.gracefulTeardown();
      expect({ exitCode, outlived, swept }).toEqual({ exitCode: 0, outlived: [], swept: [] });
      expect(receiver.exports).toEqual([]);
    } finally {
      await world.teardown();
      await receiver.close();
    }
  });
});
