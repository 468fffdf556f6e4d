import { PluginStartError } from '../../../src/domain/errors';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { failingBehaviour } from '../../support/fake-plugins';
import { manifestFixture } from '../../support/fixtures';
import { invokeInput } from '../../support/invocation';

/** `install --force` (docs/operations.md): the development loop, rebuilding one version again and again. */
describe('InstallPlugin with force', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
    await h.install.execute({ path: h.addEchoPackage('acme.tools', '1.0.0', ['echo']) });
    await h.store.putState('acme.tools', 'cursor', '"page-2"', 10000);
    h.catalogChanges.length = 0;
  });

  afterEach(() => h.shutdown());

  it('installs a plugin that is not installed, as a plain install does', async () => {
    const record = await h.install.execute({ path: h.addEchoPackage('acme.other', '1.0.0', ['run']), force: true });
    expect(record).toMatchObject({ id: 'acme.other', status: 'active' });
  });

  it('replaces the installed version with a new process, keeping its state, data dir and install time', async () => {
    const before = (await h.store.getPlugin('acme.tools'))!;
    const oldPid = h.running.instanceOf('acme.tools')!.pid()!;
    const revision = h.catalog.current().revision;

    const record = await h.install.execute({ path: h.addEchoPackage('acme.tools', '1.0.0', ['echo']), force: true });

    expect(record).toMatchObject({ id: 'acme.tools', version: '1.0.0', status: 'active', installed_at: before.installed_at });
    const newPid = h.running.instanceOf('acme.tools')!.pid()!;
    expect(newPid).not.toBe(oldPid);
    expect(h.runtime.isAlive(oldPid)).toBe(false);
    expect(await h.store.getState('acme.tools', 'cursor')).toBe('"page-2"');
    expect(h.packages.hasDataDir('acme.tools')).toBe(true);
    expect(h.packages.installedVersions('acme.tools')).toEqual(['1.0.0']);
    // The same declarations: the catalog content is the same, so no revision and no list_changed.
    expect(h.catalog.current().revision).toBe(revision);
    expect(h.catalogChanges).toEqual([]);
    await expect(h.invoke.execute(invokeInput('acme.tools', 'echo', {}))).resolves.toMatchObject({ isError: false });
  });

  it('publishes one revision when the rebuilt version declares other tools', async () => {
    await h.install.execute({ path: h.addEchoPackage('acme.tools', '1.0.0', ['echo', 'added']), force: true });
    expect(h.catalogChanges).toHaveLength(1);
    expect(h.catalog.current().tools.map((t) => t.exposed_name)).toEqual(['kandev_acme_tools_added', 'kandev_acme_tools_echo']);
  });

  it('leaves the old process serving, its folder and record in place, when the new one fails to start', async () => {
    const before = await h.store.getPlugin('acme.tools');
    const oldInstance = h.running.instanceOf('acme.tools')!;
    const path = h.addPackage(manifestFixture('acme.tools', '1.0.0', ['echo']), failingBehaviour());

    await expect(h.install.execute({ path, force: true })).rejects.toBeInstanceOf(PluginStartError);

    expect(await h.store.getPlugin('acme.tools')).toEqual(before);
    expect(h.running.instanceOf('acme.tools')).toBe(oldInstance);
    expect(h.runtime.isAlive(oldInstance.pid()!)).toBe(true);
    expect(h.packages.installedVersions('acme.tools')).toEqual(['1.0.0']);
    expect(h.catalogChanges).toEqual([]);
  });

  it('still refuses the installed version without force', async () => {
    await expect(h.install.execute({ path: h.addEchoPackage('acme.tools', '1.0.0', ['echo']) })).rejects.toMatchObject({ code: 'ALREADY_INSTALLED' });
  });
});
