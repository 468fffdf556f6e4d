import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PluginStartError } from '../../../src/domain/errors';
import { toolCall, useRuntimeHarness } from './support/runtime-harness';

// Real processes on a shared 2-core machine: generous per-test bounds, tight assertions inside.
jest.setTimeout(20_000);

/** go-plugin's AutoMTLS between the runtime and real plugin processes (docs/plugin-protocol.md §4). */
describe('GrpcPluginRuntime and mutual TLS', () => {
  const h = useRuntimeHarness();

  it('speaks mutual TLS to an SDK plugin, and marks the instance tls: true', async () => {
    const instance = await h.start(h.sdkSpec());
    expect(instance.tls).toBe(true);
    expect((await h.runtime.invoke(instance, toolCall('echo'))).isError).toBe(false);
    expect(h.logger.records.find((r) => r.message === 'plugin serving')?.fields.plugin_fields).toMatchObject({ tls: true });
  });

  it('speaks plaintext to a plugin that answers without a certificate, and marks it tls: false', async () => {
    const instance = await h.start(h.rawSpec('raw-plugin.js'));
    expect(instance.tls).toBe(false);
    expect((await h.runtime.invoke(instance, toolCall('echo'))).text).toMatch(/^raw echo /);
  });

  it('with requireMtls, refuses a plaintext plugin at start with a clear reason and leaves nothing running', async () => {
    h.useOptions({ requireMtls: true });
    const outcome = await h.start(h.rawSpec('raw-plugin.js', [], 'plain.plugin')).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(PluginStartError);
    expect((outcome as PluginStartError).code).toBe('PLUGIN_START_FAILED');
    expect((outcome as PluginStartError).message).toBe(
      'plugin plain.plugin 1.0.0 failed to start: it answered without a server certificate (plaintext), and the backend requires mutual TLS (--plugin-require-mtls)',
    );
    expect((await h.start(h.sdkSpec())).tls).toBe(true);
  });

  it('refuses a restart that answers in plaintext after the instance started over mutual TLS', async () => {
    h.useOptions({ maxRestarts: 1 });
    const spec = h.sdkSpec('downgrading.plugin');
    const instance = await h.start(spec);
    writeFileSync(join(spec.dataDir, 'serve-plaintext'), '');
    await h.runtime.invoke(instance, toolCall('crash')).catch(() => undefined);
    const gaveUp = await h.recorder.waitFor((event) => event.gaveUp, 10_000, 'the restarts to give up');
    expect(gaveUp.reason).toContain(
      'it answered without a server certificate (plaintext), and this instance started over mutual TLS (a restart may not downgrade it)',
    );
    expect(instance.tls).toBe(true);
    expect(instance.pid()).toBeUndefined();
  });
});
