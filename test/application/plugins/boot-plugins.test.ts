import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { createBackendHarness } from '../../support/backend-harness';
import { failingBehaviour } from '../../support/fake-plugins';
import { manifestFixture, pluginRecordFixture } from '../../support/fixtures';

describe('BootPlugins', () => {
  it('starts every enabled plugin, leaves disabled ones, puts a failing one in error, and computes the catalog once', async () => {
    const store = new InMemoryPluginStore();
    const h = await createBackendHarness({ store });
    await h.unpack(h.addEchoPackage('good', '1.0.0', ['run']));
    await h.unpack(h.addPackage(manifestFixture('broken', '1.0.0', ['run']), failingBehaviour()));
    await h.unpack(h.addEchoPackage('off', '1.0.0', ['run']));
    await store.transaction((tx) =>
      tx.savePlugin(pluginRecordFixture({ id: 'good', manifest: manifestFixture('good', '1.0.0', ['run']), status: 'error', install_seq: 1 })),
    );
    await store.transaction((tx) =>
      tx.savePlugin(pluginRecordFixture({ id: 'broken', manifest: manifestFixture('broken', '1.0.0', ['run']), install_seq: 2 })),
    );
    await store.transaction((tx) =>
      tx.savePlugin(pluginRecordFixture({ id: 'off', manifest: manifestFixture('off', '1.0.0', ['run']), status: 'disabled', enabled: false, install_seq: 3 })),
    );

    await h.boot.execute();

    expect(await store.getPlugin('good')).toMatchObject({ status: 'active', last_error: null, last_error_at: null });
    const broken = await store.getPlugin('broken');
    expect(broken).toMatchObject({ status: 'error', last_error: expect.stringContaining('handshake'), last_error_at: broken?.updated_at });
    expect(await store.getPlugin('off')).toMatchObject({ status: 'disabled' });
    expect(h.runtime.runningInstances().map((i) => i.pluginId)).toEqual(['good']);
    expect(h.catalogChanges).toHaveLength(1);
    expect(h.catalog.current().tools.map((t) => t.exposed_name)).toEqual(['kandev_good_run']);
    await h.shutdown();
  });

  it('puts the later-installed of two clashing plugins in error with the reason; the other keeps its tools', async () => {
    const store = new InMemoryPluginStore();
    const h = await createBackendHarness({ store });
    await h.unpack(h.addEchoPackage('a.b', '1.0.0', ['run']));
    await h.unpack(h.addEchoPackage('a-b', '1.0.0', ['run', 'other']));
    await store.transaction((tx) =>
      tx.savePlugin(pluginRecordFixture({ id: 'a-b', manifest: manifestFixture('a-b', '1.0.0', ['run', 'other']), install_seq: 2 })),
    );
    await store.transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: 'a.b', manifest: manifestFixture('a.b', '1.0.0', ['run']), install_seq: 1 })));

    await h.boot.execute();

    expect((await store.getPlugin('a.b'))?.status).toBe('active');
    expect(await store.getPlugin('a-b')).toMatchObject({ status: 'error', last_error: expect.stringContaining('kandev_a_b_run') });
    expect(h.catalog.current().tools.map((t) => `${t.plugin_id}:${t.exposed_name}`)).toEqual(['a.b:kandev_a_b_run']);
    expect(h.runtime.runningInstances().map((i) => i.pluginId)).toEqual(['a.b']);
    await h.shutdown();
  });

  it('first removes the folders no record names (an uninstall or upgrade cut short), keeping the running versions', async () => {
    const store = new InMemoryPluginStore();
    const h = await createBackendHarness({ store });
    h.addEchoPackage('kept', '2.0.0', ['run']);
    await store.transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: 'kept', version: '2.0.0', manifest: manifestFixture('kept', '2.0.0', ['run']) })));
    for (const [id, version] of [
      ['kept', '1.0.0'],
      ['kept', '2.0.0'],
      ['gone', '1.0.0'],
    ] as const) {
      h.packages.register(`/leftover/${id}-${version}`, manifestFixture(id, version, ['run']));
      await h.packages.commit(await h.packages.stage(`/leftover/${id}-${version}`));
    }
    await h.packages.dataDir('gone');

    await h.boot.execute();

    expect(h.packages.installedVersions('kept')).toEqual(['2.0.0']);
    expect(h.packages.installedVersions('gone')).toEqual([]);
    expect(h.packages.hasDataDir('gone')).toBe(false);
    expect(h.logger.text()).toContain('removed plugin folders no record names');
    expect((await store.getPlugin('kept'))?.status).toBe('active');
    await h.shutdown();
  });

  it('opens a new generation at each start from the stored boot counter', async () => {
    const store = new InMemoryPluginStore();
    const first = await createBackendHarness({ store });
    const second = await createBackendHarness({ store });
    expect(first.catalog.current().generation).toMatch(/^000000000001-[0-9a-f]{8}$/);
    expect(second.catalog.current().generation).toMatch(/^000000000002-[0-9a-f]{8}$/);
    expect(second.catalog.current().revision).toBe(1);
    await first.shutdown();
    await second.shutdown();
  });
});
