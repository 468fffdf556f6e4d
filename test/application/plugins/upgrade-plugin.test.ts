import { PluginStartError, type ToolportError } from '../../../src/domain/errors';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { echoBehaviour, failingBehaviour } from '../../support/fake-plugins';
import { manifestFixture } from '../../support/fixtures';
import { invokeInput, rejectionCode, waitUntil } from '../../support/invocation';

describe('UpgradePlugin', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
    await h.install.execute({ path: h.addEchoPackage('acme.tools', '1.0.0', ['echo', 'slow', 'old_tool']) });
    h.catalogChanges.length = 0;
  });

  afterEach(() => h.shutdown());

  it('keeps the old record, instance (same pid) and tools when the new version fails to start, with no catalog change', async () => {
    const before = await h.store.getPlugin('acme.tools');
    const oldInstance = h.running.instanceOf('acme.tools')!;
    const oldPid = oldInstance.pid();
    const catalogBefore = h.catalog.current();
    const path = h.addPackage(manifestFixture('acme.tools', '2.0.0', ['echo', 'new_tool']), failingBehaviour());

    await expect(h.upgrade.execute({ pluginId: 'acme.tools', path })).rejects.toBeInstanceOf(PluginStartError);

    expect(await h.store.getPlugin('acme.tools')).toEqual(before);
    expect(h.running.instanceOf('acme.tools')).toBe(oldInstance);
    expect(oldInstance.pid()).toBe(oldPid);
    expect(h.runtime.isAlive(oldPid!)).toBe(true);
    expect(h.catalogChanges).toEqual([]);
    expect(h.catalog.current()).toEqual(catalogBefore);
    expect(h.packages.installedVersions('acme.tools')).toEqual(['1.0.0']);
    const result = await h.invoke.execute(invokeInput('acme.tools', 'echo', { still: 'old' }));
    expect(result.structuredContent).toMatchObject({ arguments: { still: 'old' } });
  });

  it('swaps the tools in exactly one catalog revision and stops the old instance after the new one is up', async () => {
    const oldInstance = h.running.instanceOf('acme.tools')!;
    const oldPid = oldInstance.pid()!;
    const revisionBefore = h.catalog.current().revision;
    let oldAliveWhenNewStarted: boolean | undefined;
    const behaviour = echoBehaviour();
    behaviour.beforeStart = async () => {
      oldAliveWhenNewStarted = h.runtime.isAlive(oldPid);
    };
    const path = h.addPackage(manifestFixture('acme.tools', '2.0.0', ['echo', 'new_tool']), behaviour);

    const record = await h.upgrade.execute({ pluginId: 'acme.tools', path });

    expect(oldAliveWhenNewStarted).toBe(true);
    expect(record).toMatchObject({ version: '2.0.0', status: 'active' });
    expect(h.catalogChanges).toHaveLength(1);
    expect(h.catalog.current().revision).toBe(revisionBefore + 1);
    expect(h.catalog.current().tools.map((t) => `${t.exposed_name}@${t.plugin_version}`)).toEqual([
      'kandev_acme_tools_echo@2.0.0',
      'kandev_acme_tools_new_tool@2.0.0',
    ]);
    expect(h.runtime.isAlive(oldPid)).toBe(false);
    expect(h.running.instanceOf('acme.tools')?.version).toBe('2.0.0');
    expect(h.packages.installedVersions('acme.tools')).toEqual(['1.0.0', '2.0.0']);
  });

  it('prunes older versions, keeping the previous one', async () => {
    await h.upgrade.execute({ pluginId: 'acme.tools', path: h.addEchoPackage('acme.tools', '2.0.0') });
    await h.upgrade.execute({ pluginId: 'acme.tools', path: h.addEchoPackage('acme.tools', '3.0.0') });
    expect(h.packages.installedVersions('acme.tools')).toEqual(['2.0.0', '3.0.0']);
  });

  it('cancels calls in flight on the old version with CANCELLED_BY_LIFECYCLE; later calls reach the new one', async () => {
    const inFlight = h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 10000 }));
    await waitUntil(() => h.runtime.calls.length === 1);
    await h.upgrade.execute({ pluginId: 'acme.tools', path: h.addEchoPackage('acme.tools', '2.0.0') });
    expect(await rejectionCode(inFlight)).toBe('CANCELLED_BY_LIFECYCLE');
    await h.invoke.execute(invokeInput('acme.tools', 'echo', {}));
    const last = h.runtime.calls[h.runtime.calls.length - 1]!;
    expect(last.instanceId).toBe(h.running.instanceOf('acme.tools')!.instanceId);
  });

  it('refuses the installed version with VERSION_EXISTS and changes nothing', async () => {
    const path = h.addEchoPackage('acme.tools', '1.0.0');
    await expect(h.upgrade.execute({ pluginId: 'acme.tools', path })).rejects.toMatchObject({ code: 'VERSION_EXISTS' });
    expect(h.catalogChanges).toEqual([]);
    expect(h.packages.stagedCount()).toBe(0);
  });

  it('refuses a collision with another plugin, naming both and the name, before starting anything', async () => {
    await h.install.execute({ path: h.addEchoPackage('acme-tools', '1.0.0', ['run']) });
    h.catalogChanges.length = 0;
    const instancesBefore = h.runtime.runningInstances().map((i) => i.instanceId);
    const path = h.addEchoPackage('acme.tools', '2.0.0', ['echo', 'run']);

    const failure = (await h.upgrade.execute({ pluginId: 'acme.tools', path }).catch((e: unknown) => e)) as ToolportError;

    expect(failure.code).toBe('NAME_COLLISION');
    expect(failure.message).toContain('kandev_acme_tools_run');
    expect(failure.message).toContain('"acme.tools"');
    expect(failure.message).toContain('"acme-tools"');
    expect(h.runtime.runningInstances().map((i) => i.instanceId)).toEqual(instancesBefore);
    expect((await h.store.getPlugin('acme.tools'))?.version).toBe('1.0.0');
    expect(h.packages.installedVersions('acme.tools')).toEqual(['1.0.0']);
    expect(h.catalogChanges).toEqual([]);
  });

  it('does not count its own old record as a collision', async () => {
    const record = await h.upgrade.execute({ pluginId: 'acme.tools', path: h.addEchoPackage('acme.tools', '2.0.0', ['echo', 'slow', 'old_tool']) });
    expect(record.version).toBe('2.0.0');
  });

  it('gives a disabled plugin the new version and keeps it disabled', async () => {
    await h.disable.execute('acme.tools');
    h.catalogChanges.length = 0;
    const record = await h.upgrade.execute({ pluginId: 'acme.tools', path: h.addEchoPackage('acme.tools', '2.0.0') });
    expect(record).toMatchObject({ version: '2.0.0', status: 'disabled', enabled: false });
    expect(h.runtime.runningInstances()).toEqual([]);
    expect(h.catalogChanges).toEqual([]);
  });

  it('answers NOT_FOUND for an unknown plugin', async () => {
    await expect(h.upgrade.execute({ pluginId: 'nope', path: h.addEchoPackage('nope', '2.0.0') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
