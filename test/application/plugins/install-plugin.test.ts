import { InvalidPackageError, PluginStartError, ToolportError } from '../../../src/domain/errors';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { failingBehaviour } from '../../support/fake-plugins';
import { manifestFixture } from '../../support/fixtures';

describe('InstallPlugin', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
  });

  afterEach(() => h.shutdown());

  it('answers the active record once the plugin runs, and its tools enter the catalog in one revision', async () => {
    const record = await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    expect(record).toMatchObject({ id: 'acme.tools', version: '1.0.0', status: 'active', enabled: true, last_error: null, restart_count: 0 });
    expect(await h.store.getPlugin('acme.tools')).toEqual(record);
    expect(h.runtime.runningInstances().map((i) => i.pluginId)).toEqual(['acme.tools']);
    expect(h.catalogChanges).toHaveLength(1);
    expect(h.catalog.current().tools.map((t) => t.exposed_name)).toEqual(['kandev_acme_tools_crash', 'kandev_acme_tools_echo', 'kandev_acme_tools_slow']);
  });

  it('keeps nothing when the process fails to start: no folder, no record, no catalog change', async () => {
    const path = h.addPackage(manifestFixture('broken.plugin'), failingBehaviour());
    const failure = await h.install.execute({ path }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PluginStartError);
    expect((failure as PluginStartError).details).toEqual({ exit_code: 1, stderr: ['boom: cannot start'] });
    expect(await h.store.getPlugin('broken.plugin')).toBeUndefined();
    expect(h.packages.installedVersions('broken.plugin')).toEqual([]);
    expect(h.packages.hasDataDir('broken.plugin')).toBe(false);
    expect(h.catalogChanges).toEqual([]);
    expect(h.runtime.runningInstances()).toEqual([]);
  });

  it('refuses an installed id with ALREADY_INSTALLED and leaves the installed one alone', async () => {
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    const again = h.addEchoPackage('acme.tools', '2.0.0');
    await expect(h.install.execute({ path: again })).rejects.toMatchObject({ code: 'ALREADY_INSTALLED' });
    expect((await h.store.getPlugin('acme.tools'))?.version).toBe('1.0.0');
    expect(h.packages.installedVersions('acme.tools')).toEqual(['1.0.0']);
    expect(h.packages.stagedCount()).toBe(0);
    expect(h.catalogChanges).toHaveLength(1);
  });

  it('refuses a name collision with NAME_COLLISION naming both plugins and the name, keeping nothing', async () => {
    await h.install.execute({ path: h.addEchoPackage('a.b', '1.0.0', ['run']) });
    const clash = h.addEchoPackage('a-b', '1.0.0', ['run']);
    const failure = (await h.install.execute({ path: clash }).catch((e: unknown) => e)) as ToolportError;
    expect(failure.code).toBe('NAME_COLLISION');
    expect(failure.message).toContain('kandev_a_b_run');
    expect(failure.message).toContain('a.b');
    expect(failure.message).toContain('a-b');
    expect(await h.store.getPlugin('a-b')).toBeUndefined();
    expect(h.packages.installedVersions('a-b')).toEqual([]);
    expect(h.runtime.runningInstances()).toHaveLength(1);
  });

  it('checks collisions against every record, disabled ones included', async () => {
    await h.install.execute({ path: h.addEchoPackage('a.b', '1.0.0', ['run']) });
    await h.disable.execute('a.b');
    await expect(h.install.execute({ path: h.addEchoPackage('a-b', '1.0.0', ['run']) })).rejects.toMatchObject({ code: 'NAME_COLLISION' });
  });

  it('passes an invalid package through as INVALID_PACKAGE with every violation', async () => {
    const violations = [
      { path: 'id', message: 'bad id' },
      { path: 'agent_tools[0].surfaces[0]', message: 'unsupported surface "configuration"' },
    ];
    h.packages.registerInvalid('/bad', violations);
    const failure = await h.install.execute({ path: '/bad' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InvalidPackageError);
    expect((failure as InvalidPackageError).details).toEqual(violations);
  });

  it('passes a checksum mismatch through and keeps nothing', async () => {
    const path = h.addEchoPackage('acme.tools');
    await expect(h.install.execute({ path, sha256: 'f'.repeat(64) })).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    expect(await h.store.listPlugins()).toEqual([]);
  });

  it('gives each install a later install_seq', async () => {
    const a = await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['x']) });
    const b = await h.install.execute({ path: h.addEchoPackage('b', '1.0.0', ['y']) });
    expect(b.install_seq).toBeGreaterThan(a.install_seq);
  });
});
