import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { failingBehaviour } from '../../support/fake-plugins';
import { waitUntil } from '../../support/invocation';
import { StatusRecorder } from '../../support/status-recorder';

describe('PluginSupervision', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness({ settings: { restartBackoffMs: 5 } });
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    await h.install.execute({ path: h.addEchoPackage('other', '1.0.0', ['run']) });
    h.catalogChanges.length = 0;
  });

  afterEach(() => h.shutdown());

  it('moves a crashed plugin to error at once (its tools leave) and back to active on recovery', async () => {
    const instance = h.running.instanceOf('acme.tools')!;
    h.runtime.crash(instance, 'plugin process exited with code 3');
    await h.supervision.settled();

    const errored = (await h.store.getPlugin('acme.tools'))!;
    expect(errored).toMatchObject({ status: 'error', last_error: 'plugin process exited with code 3', last_error_at: errored.updated_at });
    expect(h.catalog.current().tools.map((t) => t.plugin_id)).toEqual(['other']);
    expect(h.catalogChanges).toHaveLength(1);

    await waitUntil(async () => (await h.store.getPlugin('acme.tools'))?.status === 'active', 2000, 'recovery');
    // Back to active, it still says what went wrong, and when.
    expect(await h.store.getPlugin('acme.tools')).toMatchObject({ restart_count: 1, last_error: errored.last_error, last_error_at: errored.last_error_at });
    expect(h.catalog.current().tools.filter((t) => t.plugin_id === 'acme.tools')).toHaveLength(3);
    expect(h.catalogChanges).toHaveLength(2);
  });

  it('treats failed health checks like an exit', async () => {
    h.runtime.failHealth(h.running.instanceOf('acme.tools')!);
    await waitUntil(async () => (await h.store.getPlugin('acme.tools'))?.status === 'error', 2000, 'three failed health checks');
    expect(await h.store.getPlugin('acme.tools')).toMatchObject({ status: 'error', last_error: expect.stringContaining('3 health checks in a row') });
  });

  it('stays in error once restarts are exhausted', async () => {
    const runtime = h.runtime;
    const instance = h.running.instanceOf('acme.tools')!;
    runtime.register(h.packages.locate((await h.store.getPlugin('acme.tools'))!.manifest).executable, failingBehaviour());
    const recorder = new StatusRecorder(runtime);
    runtime.crash(instance);
    await recorder.waitFor((e) => e.gaveUp, 5000, 'give up');
    recorder.dispose();
    await h.supervision.settled();
    expect(await h.store.getPlugin('acme.tools')).toMatchObject({ status: 'error', restart_count: 5 });
    expect(h.catalog.current().tools.some((t) => t.plugin_id === 'acme.tools')).toBe(false);
  });

  it('ignores events of superseded instances (the old one of an upgrade)', async () => {
    const old = h.running.instanceOf('acme.tools')!;
    await h.upgrade.execute({ pluginId: 'acme.tools', path: h.addEchoPackage('acme.tools', '2.0.0') });
    h.catalogChanges.length = 0;
    // The old instance is stopped; a late event about it must not touch the new record.
    h.runtime.emitStatus({ instance: old, status: 'error', reason: 'late', restartCount: 0, gaveUp: false });
    expect(await h.store.getPlugin('acme.tools')).toMatchObject({ status: 'active', version: '2.0.0', last_error: null });
    expect(h.catalogChanges).toEqual([]);
  });
});
