import { PluginStartError } from '../../../src/domain/errors';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import type { JsonObject } from '../../../src/domain/json';
import { echoBehaviour, failingBehaviour } from '../../support/fake-plugins';
import { manifestFixture } from '../../support/fixtures';
import { invokeInput } from '../../support/invocation';
import { instanceOwner } from '../../../src/domain/host-entry-owner';

/** `install --force` (docs/operations.md): the development loop, rebuilding one version again and again. */
describe('InstallPlugin with force', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
    await h.install.execute({ path: h.addEchoPackage('acme.tools', '1.0.0', ['echo']) });
    await h.store.putState(instanceOwner('acme.tools'), 'cursor', '"page-2"', 10000);
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
    expect(await h.store.getState(instanceOwner('acme.tools'), 'cursor')).toBe('"page-2"');
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

  describe('adding a config_schema the stored configuration does not satisfy (issue 30)', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { base_url: { type: 'string' }, api_key: { type: 'string', writeOnly: true } },
      required: ['base_url', 'api_key'],
    };
    const withSchema = (version = '1.0.0') => h.addPackage(manifestFixture('acme.tools', version, ['echo'], { config_schema: schema }), echoBehaviour());

    beforeEach(async () => {
      // Set on the version without a schema: nothing says api_key is a secret yet.
      await h.configure.execute({ pluginId: 'acme.tools', values: { api_key: 'sk-live-123' } });
      h.catalogChanges.length = 0;
    });

    it('stops the old process, takes its tools out in one revision and keeps the new version in needs_config naming what is missing', async () => {
      const oldPid = h.running.instanceOf('acme.tools')!.pid()!;
      const record = await h.install.execute({ path: withSchema(), force: true });
      expect(record).toMatchObject({ id: 'acme.tools', version: '1.0.0', status: 'needs_config', enabled: true });
      expect(record.manifest.config_schema).toEqual(schema);
      expect(record.last_error).toContain('base_url');
      expect(record.last_error).not.toContain('sk-live-123');
      expect(h.runtime.isAlive(oldPid)).toBe(false);
      expect(h.running.instanceOf('acme.tools')).toBeUndefined();
      expect(h.catalogChanges).toHaveLength(1);
      expect(h.catalog.current().tools).toEqual([]);
      await expect(h.invoke.execute(invokeInput('acme.tools', 'echo', {}))).rejects.toMatchObject({ code: 'PLUGIN_NOT_ACTIVE' });
      // The value stored before its key became a secret is masked now that it is one.
      expect(await h.getConfig.execute('acme.tools')).toEqual({ values: { api_key: '********' } });
      // Configuring the rest (the secret sent back masked) starts it with the stored secret.
      const configured = await h.configure.execute({ pluginId: 'acme.tools', values: { base_url: 'https://x.example', api_key: '********' } });
      expect(configured.status).toBe('active');
      expect(JSON.stringify(await h.getConfig.execute('acme.tools'))).not.toContain('sk-live-123');
    });

    it('a plain upgrade to such a version keeps refusing, with the old process serving', async () => {
      const instance = h.running.instanceOf('acme.tools')!;
      await expect(h.upgrade.execute({ pluginId: 'acme.tools', path: withSchema('2.0.0') })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      expect(h.running.instanceOf('acme.tools')).toBe(instance);
      expect((await h.store.getPlugin('acme.tools'))?.status).toBe('active');
      expect(h.catalogChanges).toEqual([]);
    });
  });

  it('still refuses the installed version without force', async () => {
    await expect(h.install.execute({ path: h.addEchoPackage('acme.tools', '1.0.0', ['echo']) })).rejects.toMatchObject({ code: 'ALREADY_INSTALLED' });
  });
});
