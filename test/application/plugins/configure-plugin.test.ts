import type { InMemoryPluginBehaviour } from '../../../src/adapters/memory/in-memory-plugin-runtime';
import { ConfigInvalidError, PluginStartError } from '../../../src/domain/errors';
import type { JsonObject } from '../../../src/domain/json';
import type { PluginManifest } from '../../../src/domain/manifest';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { echoBehaviour } from '../../support/fake-plugins';
import { manifestFixture, pluginRecordFixture } from '../../support/fixtures';
import { invokeInput, waitUntil } from '../../support/invocation';
import { instanceOwner } from '../../../src/domain/host-entry-owner';

const CONFIG_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    base_url: { type: 'string' },
    api_token: { type: 'string', writeOnly: true },
    retries: { type: 'integer', minimum: 0 },
  },
  required: ['base_url', 'api_token'],
  additionalProperties: false,
};

function trackerManifest(version = '1.0.0', overrides: Partial<PluginManifest> = {}): PluginManifest {
  return manifestFixture('acme.tracker', version, ['echo', 'slow', 'config'], { config_schema: CONFIG_SCHEMA, capabilities: { state: true }, ...overrides });
}

/** echo and slow as usual, and `config`: what the plugin reads through GetConfig with its own Host token. */
function configReadingBehaviour(h: () => BackendHarness): InMemoryPluginBehaviour {
  const behaviour = echoBehaviour();
  behaviour.tools.config = async (_args, call) => ({ text: await h().host.getConfig(call.hostToken ?? ''), structuredContentJson: '', isError: false });
  return behaviour;
}

describe('plugin configuration (ConfigurePlugin, GetPluginConfig)', () => {
  let h: BackendHarness;
  const harness = () => h;
  const readConfig = async () => JSON.parse((await h.invoke.execute(invokeInput('acme.tracker', 'config'))).text) as JsonObject;

  beforeEach(async () => {
    h = await createBackendHarness();
  });

  afterEach(() => h.shutdown());

  async function installTracker(): Promise<void> {
    const record = await h.install.execute({ path: h.addPackage(trackerManifest(), configReadingBehaviour(harness)) });
    expect(record.status).toBe('needs_config');
    h.catalogChanges.length = 0;
  }

  it('installs a plugin with required keys as needs_config: no process, no tools, last_error naming the keys', async () => {
    const record = await h.install.execute({ path: h.addPackage(trackerManifest(), configReadingBehaviour(harness)) });
    expect(record).toMatchObject({ status: 'needs_config', enabled: true });
    expect(record.last_error).toContain('base_url: is required');
    expect(record.last_error).toContain('api_token: is required');
    expect(h.runtime.runningInstances()).toEqual([]);
    expect(h.catalog.current().tools).toEqual([]);
    expect(await h.getConfig.execute('acme.tracker')).toEqual({ values: {} });
  });

  it('refuses enable of a plugin in needs_config with CONFIG_INVALID, changing nothing', async () => {
    await installTracker();
    const failure = await h.enable.execute('acme.tracker').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigInvalidError);
    expect((failure as ConfigInvalidError).details).toEqual(expect.arrayContaining([{ path: 'api_token', message: 'is required' }]));
    expect((await h.store.getPlugin('acme.tracker'))?.status).toBe('needs_config');
    expect(h.runtime.runningInstances()).toEqual([]);
  });

  it('refuses an invalid configuration with every violation and changes nothing', async () => {
    await installTracker();
    const failure = (await h.configure.execute({ pluginId: 'acme.tracker', values: { retries: -1, extra: 1 } }).catch((e: unknown) => e)) as ConfigInvalidError;
    expect(failure.code).toBe('CONFIG_INVALID');
    expect(failure.violations.map((v) => v.path).sort()).toEqual(['api_token', 'base_url', 'extra', 'retries']);
    expect(await h.store.getConfig('acme.tracker')).toBeUndefined();
    expect(h.catalogChanges).toEqual([]);
  });

  it('a valid configuration starts it: active, its tools in one revision, the process reads the secret in clear, the API only masked', async () => {
    await installTracker();
    const record = await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://t.example', api_token: 'tok-123' } });
    expect(record).toMatchObject({ status: 'active', last_error: null });
    expect(h.catalogChanges).toHaveLength(1);
    expect(h.catalog.current().tools.map((t) => t.local_name)).toEqual(['config', 'echo', 'slow']);
    expect(await readConfig()).toEqual({ base_url: 'https://t.example', api_token: 'tok-123' });
    expect(await h.getConfig.execute('acme.tracker')).toEqual({ values: { base_url: 'https://t.example', api_token: '********' } });
    // Stored sealed: the secret is in no stored text.
    expect(JSON.stringify(await h.store.getConfig('acme.tracker'))).not.toContain('tok-123');
  });

  it('keeps a stored secret sent back as "********"', async () => {
    await installTracker();
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://a.example', api_token: 'tok-123' } });
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://b.example', api_token: '********' } });
    expect(await readConfig()).toEqual({ base_url: 'https://b.example', api_token: 'tok-123' });
  });

  it('treats the same values as a no-op: same process, no catalog change', async () => {
    await installTracker();
    const values = { base_url: 'https://t.example', api_token: 'tok', retries: 2 };
    const first = await h.configure.execute({ pluginId: 'acme.tracker', values });
    const instance = h.running.instanceOf('acme.tracker')!;
    h.catalogChanges.length = 0;
    const again = await h.configure.execute({ pluginId: 'acme.tracker', values: { retries: 2, api_token: '********', base_url: 'https://t.example' } });
    expect(again).toEqual(first);
    expect(h.running.instanceOf('acme.tracker')).toBe(instance);
    expect(h.runtime.runningInstances()).toHaveLength(1);
    expect(h.catalogChanges).toEqual([]);
  });

  it('changes an active plugin like an upgrade: new process first, calls in flight on the old one finish, no catalog change', async () => {
    await installTracker();
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://old.example', api_token: 'old' } });
    const old = h.running.instanceOf('acme.tracker')!;
    const oldPid = old.pid()!;
    h.catalogChanges.length = 0;
    const slow = h.invoke.execute(invokeInput('acme.tracker', 'slow', { ms: 150 }));
    await waitUntil(() => h.running.inFlight('acme.tracker') === 1);

    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://new.example', api_token: 'new' } });

    expect(h.running.instanceOf('acme.tracker')).not.toBe(old);
    expect(h.runtime.isAlive(oldPid)).toBe(true);
    expect(await readConfig()).toEqual({ base_url: 'https://new.example', api_token: 'new' });
    expect((await slow).text).toBe('slept 150 ms');
    await h.configure.settled();
    expect(h.runtime.isAlive(oldPid)).toBe(false);
    expect(h.catalogChanges).toEqual([]);
  });

  it('keeps the old process and the old configuration when the new process fails to start', async () => {
    let failNext = false;
    const behaviour = configReadingBehaviour(harness);
    behaviour.beforeStart = async () => {
      if (failNext) throw new PluginStartError('plugin acme.tracker failed to start: bad token', 1, ['auth failed']);
    };
    await h.install.execute({ path: h.addPackage(trackerManifest(), behaviour) });
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://old.example', api_token: 'old' } });
    const old = h.running.instanceOf('acme.tracker')!;
    const oldPid = old.pid();
    const storedBefore = await h.store.getConfig('acme.tracker');
    h.catalogChanges.length = 0;
    failNext = true;

    await expect(h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://new.example', api_token: 'new' } })).rejects.toMatchObject({
      code: 'PLUGIN_START_FAILED',
    });

    expect(h.running.instanceOf('acme.tracker')).toBe(old);
    expect(old.pid()).toBe(oldPid);
    expect(await h.store.getConfig('acme.tracker')).toEqual(storedBefore);
    expect(await readConfig()).toEqual({ base_url: 'https://old.example', api_token: 'old' });
    expect(h.catalogChanges).toEqual([]);
  });

  it('only stores the configuration of a disabled plugin; enable then starts it with it', async () => {
    await installTracker();
    await h.disable.execute('acme.tracker');
    const record = await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://t.example', api_token: 'tok' } });
    expect(record.status).toBe('disabled');
    expect(h.runtime.runningInstances()).toEqual([]);
    expect((await h.enable.execute('acme.tracker')).status).toBe('active');
    expect(await readConfig()).toEqual({ base_url: 'https://t.example', api_token: 'tok' });
  });

  it('refuses an upgrade whose config_schema the stored configuration breaks, with every violation, and changes nothing', async () => {
    await installTracker();
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://t.example', api_token: 'tok' } });
    const instance = h.running.instanceOf('acme.tracker')!;
    const stricter = {
      ...CONFIG_SCHEMA,
      required: ['base_url', 'api_token', 'project'],
      properties: { ...(CONFIG_SCHEMA.properties as JsonObject), project: { type: 'string' }, base_url: { type: 'integer' } },
    };
    const path = h.addPackage(trackerManifest('2.0.0', { config_schema: stricter }), configReadingBehaviour(harness));
    h.catalogChanges.length = 0;

    const failure = (await h.upgrade.execute({ pluginId: 'acme.tracker', path }).catch((e: unknown) => e)) as ConfigInvalidError;

    expect(failure.code).toBe('CONFIG_INVALID');
    expect(failure.violations).toEqual(
      expect.arrayContaining([
        { path: 'project', message: 'is required' },
        { path: 'base_url', message: 'must be integer' },
      ]),
    );
    expect((await h.store.getPlugin('acme.tracker'))?.version).toBe('1.0.0');
    expect(h.running.instanceOf('acme.tracker')).toBe(instance);
    expect(h.packages.installedVersions('acme.tracker')).toEqual(['1.0.0']);
    expect(h.catalogChanges).toEqual([]);
  });

  it('keeps the configuration and state across an upgrade the configuration satisfies', async () => {
    await installTracker();
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://t.example', api_token: 'tok' } });
    const token = h.hostAccess.open[0]!.grant.token;
    await h.host.setState(token, 'cursor', '{"page":3}');
    await h.upgrade.execute({ pluginId: 'acme.tracker', path: h.addPackage(trackerManifest('2.0.0'), configReadingBehaviour(harness)) });
    expect(await readConfig()).toEqual({ base_url: 'https://t.example', api_token: 'tok' });
    expect(await h.store.getState(instanceOwner('acme.tracker'), 'cursor')).toBe('{"page":3}');
  });

  it('stays in needs_config at boot without starting, and removes configuration and state on uninstall', async () => {
    await installTracker();
    await h.boot.execute();
    expect((await h.store.getPlugin('acme.tracker'))?.status).toBe('needs_config');
    expect(h.runtime.runningInstances()).toEqual([]);
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://t.example', api_token: 'tok' } });
    await h.store.putState(instanceOwner('acme.tracker'), 'k', '1', 10);
    await h.uninstall.execute('acme.tracker');
    expect(await h.store.getConfig('acme.tracker')).toBeUndefined();
    expect(await h.store.getState(instanceOwner('acme.tracker'), 'k')).toBeUndefined();
  });

  it('boots a plugin with a configuration it cannot decrypt (another secret key) into needs_config, saying so', async () => {
    await installTracker();
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://t.example', api_token: 'tok' } });
    await h.shutdown();
    h = await createBackendHarness({ store: h.store });
    h.addPackage(trackerManifest(), configReadingBehaviour(harness));
    await h.boot.execute();
    const record = await h.store.getPlugin('acme.tracker');
    expect(record?.status).toBe('needs_config');
    expect(record?.last_error).toMatch(/cannot be decrypted with this backend's secret key/);
    expect(h.runtime.runningInstances()).toEqual([]);
  });
});

describe('ConfigurePlugin and exposed names', () => {
  it('refuses to start a needs_config plugin whose names a stored plugin holds (NAME_COLLISION), storing nothing', async () => {
    const h = await createBackendHarness();
    try {
      await h.install.execute({ path: h.addPackage(trackerManifest()) });
      // Records that clash can only meet in the store (say, after a prefix change): a.b and a-b both give kandev_a_b_*.
      await h.store.transaction(async (tx) =>
        tx.savePlugin(
          pluginRecordFixture({ id: 'acme-tracker', manifest: manifestFixture('acme-tracker', '1.0.0', ['echo']), install_seq: await tx.nextInstallSeq() }),
        ),
      );
      await expect(h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://t.example', api_token: 'tok' } })).rejects.toMatchObject({
        code: 'NAME_COLLISION',
      });
      expect(await h.store.getConfig('acme.tracker')).toBeUndefined();
      expect((await h.store.getPlugin('acme.tracker'))?.status).toBe('needs_config');
      expect(h.runtime.runningInstances()).toEqual([]);
    } finally {
      await h.shutdown();
    }
  });
});
