import type { ToolportError } from '../../../src/domain/errors';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { failingBehaviour } from '../../support/fake-plugins';
import { manifestFixture } from '../../support/fixtures';
import { invokeInput, rejectionCode, waitUntil } from '../../support/invocation';

describe('EnablePlugin and DisablePlugin', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    h.catalogChanges.length = 0;
  });

  afterEach(() => h.shutdown());

  it('disables: record disabled and not enabled, tools leave the catalog, process stopped', async () => {
    const pid = h.running.instanceOf('acme.tools')!.pid()!;
    const record = await h.disable.execute('acme.tools');
    expect(record).toMatchObject({ status: 'disabled', enabled: false });
    expect(await h.store.getPlugin('acme.tools')).toEqual(record);
    expect(h.catalog.current().tools).toEqual([]);
    expect(h.catalogChanges).toHaveLength(1);
    expect(h.runtime.isAlive(pid)).toBe(false);
  });

  it('a disable during a call cancels it with CANCELLED_BY_LIFECYCLE and refuses the next call', async () => {
    const inFlight = h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 10000 }));
    await waitUntil(() => h.runtime.calls.length === 1, 2000, 'the call reached the plugin');
    await h.disable.execute('acme.tools');
    expect(await rejectionCode(inFlight)).toBe('CANCELLED_BY_LIFECYCLE');
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo', {})))).toBe('PLUGIN_NOT_ACTIVE');
    expect(h.runtime.calls).toHaveLength(1);
  });

  it('a no-op disable changes and signals nothing', async () => {
    const first = await h.disable.execute('acme.tools');
    h.catalogChanges.length = 0;
    const second = await h.disable.execute('acme.tools');
    expect(second).toEqual(first);
    expect((await h.store.getPlugin('acme.tools'))?.updated_at).toBe(first.updated_at);
    expect(h.catalogChanges).toEqual([]);
  });

  it('a no-op enable of an active plugin changes and signals nothing (same instance)', async () => {
    const before = await h.store.getPlugin('acme.tools');
    const instance = h.running.instanceOf('acme.tools');
    const record = await h.enable.execute('acme.tools');
    expect(record).toEqual(before);
    expect(h.running.instanceOf('acme.tools')).toBe(instance);
    expect(h.catalogChanges).toEqual([]);
  });

  it('enables a disabled plugin: a new process, active record, tools back in one revision', async () => {
    await h.disable.execute('acme.tools');
    h.catalogChanges.length = 0;
    const record = await h.enable.execute('acme.tools');
    expect(record).toMatchObject({ status: 'active', enabled: true, last_error: null, last_error_at: null });
    expect(h.catalogChanges).toHaveLength(1);
    expect(h.catalog.current().tools).toHaveLength(3);
    const result = await h.invoke.execute(invokeInput('acme.tools', 'echo', { back: 1 }));
    expect(result.structuredContent).toMatchObject({ arguments: { back: 1 } });
  });

  it('answers an error record when the enabled plugin fails to start', async () => {
    await h.disable.execute('acme.tools');
    h.runtime.register(h.packages.locate((await h.store.getPlugin('acme.tools'))!.manifest).executable, failingBehaviour());
    h.catalogChanges.length = 0;
    const record = await h.enable.execute('acme.tools');
    expect(record).toMatchObject({ status: 'error', enabled: true });
    expect(record.last_error).toContain('before its handshake');
    expect(record.last_error_at).toBe(record.updated_at);
    expect(h.catalogChanges).toEqual([]);
  });

  it('refuses to enable a plugin whose names clash with another, naming both', async () => {
    // A clash can only arise from stored records (say, after the prefix changed): plant one.
    await h.disable.execute('acme.tools');
    await h.store.transaction(async (tx) =>
      tx.savePlugin({
        ...(await tx.getPlugin('acme.tools'))!,
        id: 'acme-tools',
        manifest: manifestFixture('acme-tools', '1.0.0', ['echo']),
        install_seq: await tx.nextInstallSeq(),
      }),
    );
    const failure = (await h.enable.execute('acme-tools').catch((e: unknown) => e)) as ToolportError;
    expect(failure.code).toBe('NAME_COLLISION');
    expect(failure.message).toContain('kandev_acme_tools_echo');
    expect(failure.message).toContain('"acme-tools"');
    expect(failure.message).toContain('"acme.tools"');
    expect((await h.store.getPlugin('acme-tools'))?.status).toBe('disabled');
  });

  it('answers NOT_FOUND for unknown ids', async () => {
    await expect(h.enable.execute('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(h.disable.execute('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(h.uninstall.execute('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('serialises lifecycle calls on one plugin: disable and enable issued together end enabled', async () => {
    const [disabled, enabled] = await Promise.all([h.disable.execute('acme.tools'), h.enable.execute('acme.tools')]);
    expect(disabled.status).toBe('disabled');
    expect(enabled.status).toBe('active');
    expect(h.runtime.runningInstances()).toHaveLength(1);
  });
});

describe('UninstallPlugin', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
  });

  afterEach(() => h.shutdown());

  it('cancels calls in flight, stops the process and removes the record, tools, folders and data dir', async () => {
    const pid = h.running.instanceOf('acme.tools')!.pid()!;
    const inFlight = h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 10000 }));
    await waitUntil(() => h.runtime.calls.length === 1);
    await h.uninstall.execute('acme.tools');
    expect(await rejectionCode(inFlight)).toBe('CANCELLED_BY_LIFECYCLE');
    expect(await h.store.getPlugin('acme.tools')).toBeUndefined();
    expect(h.catalog.current().tools).toEqual([]);
    expect(h.runtime.isAlive(pid)).toBe(false);
    expect(h.packages.installedVersions('acme.tools')).toEqual([]);
    expect(h.packages.hasDataDir('acme.tools')).toBe(false);
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo')))).toBe('PLUGIN_NOT_ACTIVE');
  });
});
