import type { InMemoryPluginBehaviour } from '../../../src/adapters/memory/in-memory-plugin-runtime';
import { ConfigureWorkspace } from '../../../src/application/plugins/configure-workspace';
import { GetWorkspaceConfig } from '../../../src/application/plugins/get-workspace-config';
import { ListConfigWorkspaces } from '../../../src/application/plugins/list-config-workspaces';
import { ConfigInvalidError, ToolportError } from '../../../src/domain/errors';
import type { JsonObject } from '../../../src/domain/json';
import type { PluginManifest } from '../../../src/domain/manifest';
import type { LinkedSession } from '../../../src/domain/session';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { echoBehaviour } from '../../support/fake-plugins';
import { manifestFixture, sessionRecordFixture } from '../../support/fixtures';
import { invokeInput, LIVE_SESSION } from '../../support/invocation';

const CONFIG_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    base_url: { type: 'string' },
    api_key: { type: 'string', writeOnly: true },
    retries: { type: 'integer', minimum: 0 },
  },
  required: ['base_url', 'api_key'],
  additionalProperties: false,
};

function manifest(version = '1.0.0', schema: JsonObject = CONFIG_SCHEMA): PluginManifest {
  return manifestFixture('acme.tracker', version, ['config'], { config_schema: schema });
}

/** `config`: what the plugin reads through GetConfig while it serves the call, naming it. */
function configReading(h: () => BackendHarness): InMemoryPluginBehaviour {
  const behaviour = echoBehaviour();
  behaviour.tools.config = async (_args, call) => ({
    text: await h().host.getConfig(call.hostToken ?? '', call.invocationId),
    structuredContentJson: '',
    isError: false,
  });
  return behaviour;
}

async function violationsOf(promise: Promise<unknown>): Promise<Array<{ path: string }>> {
  const error = await promise.then(
    () => {
      throw new Error('expected CONFIG_INVALID');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigInvalidError);
  return (error as ConfigInvalidError).violations;
}

describe('per-workspace configuration (ConfigureWorkspace, GetWorkspaceConfig, ListConfigWorkspaces)', () => {
  let h: BackendHarness;
  let configure: ConfigureWorkspace;
  let read: GetWorkspaceConfig;
  let list: ListConfigWorkspaces;
  const other: LinkedSession = { ...LIVE_SESSION, session_id: 'session-w2', workspace_id: 'w2' };

  beforeEach(async () => {
    h = await createBackendHarness({ hostFolders: ['/srv'] });
    configure = h.container.get(ConfigureWorkspace);
    read = h.container.get(GetWorkspaceConfig);
    list = h.container.get(ListConfigWorkspaces);
    await h.store.saveSession(sessionRecordFixture({ ...other, status: 'live' }));
    await h.install.execute({
      path: h.addPackage(
        manifest(),
        configReading(() => h),
      ),
    });
    await h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://x', api_key: 'instance-key' } });
  });

  afterEach(() => h.shutdown());

  const configSeenBy = async (session: LinkedSession) =>
    JSON.parse((await h.invoke.execute(invokeInput('acme.tracker', 'config', {}, { session }))).text) as JsonObject;

  it("gives a call bound to a workspace that workspace's keys over the instance's, at once, without a restart or a catalog change", async () => {
    const pid = h.running.instanceOf('acme.tracker')!.pid();
    const revision = h.catalog.current().revision;
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { api_key: 'w2-key' } });
    expect(await configSeenBy(other)).toEqual({ base_url: 'https://x', api_key: 'w2-key' });
    expect(await configSeenBy(LIVE_SESSION)).toEqual({ base_url: 'https://x', api_key: 'instance-key' });
    expect(h.running.instanceOf('acme.tracker')!.pid()).toBe(pid);
    expect(h.catalog.current().revision).toBe(revision);
  });

  it('reads overrides with secrets masked, keeps a secret sent as the mask, and refuses the mask when the workspace has none', async () => {
    expect(await read.execute('acme.tracker', 'w2')).toEqual({ values: {} });
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { api_key: 'w2-key', retries: 2 } });
    expect(await read.execute('acme.tracker', 'w2')).toEqual({ values: { api_key: '********', retries: 2 } });
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { api_key: '********', retries: 3 } });
    expect(await configSeenBy(other)).toEqual({ base_url: 'https://x', api_key: 'w2-key', retries: 3 });
    // The instance has a key, the workspace none: the mask does not borrow the instance's.
    expect(await violationsOf(configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w3', values: { api_key: '********' } }))).toEqual([
      expect.objectContaining({ path: 'api_key' }),
    ]);
    expect(await list.execute('acme.tracker')).toEqual({ workspaces: ['w2'] });
  });

  it('refuses overrides whose merge breaks config_schema (CONFIG_INVALID), storing nothing; {} removes them', async () => {
    expect(await violationsOf(configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { retries: -1, unknown: 1 } }))).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'retries' }), expect.objectContaining({ path: 'unknown' })]),
    );
    expect(await list.execute('acme.tracker')).toEqual({ workspaces: [] });
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { retries: 1 } });
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: {} });
    expect(await list.execute('acme.tracker')).toEqual({ workspaces: [] });
  });

  it('refuses "*" and a blank workspace id with BAD_REQUEST', async () => {
    for (const workspaceId of ['*', ' ', '']) {
      await expect(configure.execute({ pluginId: 'acme.tracker', workspaceId, values: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(read.execute('acme.tracker', workspaceId)).rejects.toBeInstanceOf(ToolportError);
    }
  });

  it('refuses an instance change that would break a workspace merge, with paths under workspaces.<W>.', async () => {
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { retries: 1 } });
    const strict: JsonObject = { ...CONFIG_SCHEMA, properties: { ...(CONFIG_SCHEMA.properties as JsonObject), retries: { type: 'integer', minimum: 2 } } };
    const upgrade = (version: string, schema: JsonObject) =>
      h.upgrade.execute({
        pluginId: 'acme.tracker',
        path: h.addPackage(
          manifest(version, schema),
          configReading(() => h),
        ),
      });
    expect(await violationsOf(upgrade('1.1.0', strict))).toEqual([expect.objectContaining({ path: 'workspaces.w2.retries' })]);
    expect((await h.store.getPlugin('acme.tracker'))!.version).toBe('1.0.0');
    // At most three keys: the instance may hold three, but not once w2 adds a fourth.
    const properties = { ...(CONFIG_SCHEMA.properties as JsonObject), region: { type: 'string' } };
    await upgrade('1.2.0', { ...CONFIG_SCHEMA, properties, maxProperties: 3 });
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { region: 'eu' } });
    const broken = await violationsOf(
      h.configure.execute({ pluginId: 'acme.tracker', values: { base_url: 'https://x', api_key: 'instance-key', retries: 5 } }),
    );
    expect(broken).toEqual([expect.objectContaining({ path: 'workspaces.w2.(root)' })]);
    expect(JSON.parse((await h.invoke.execute(invokeInput('acme.tracker', 'config'))).text)).toEqual({ base_url: 'https://x', api_key: 'instance-key' });
  });

  it('refuses an override of a key a permission path substitutes ("not applicable per workspace"), and an upgrade that would start substituting an overridden key', async () => {
    const schema: JsonObject = { type: 'object', properties: { root: { type: 'string' }, label: { type: 'string' } }, additionalProperties: false };
    const files = (version: string, readPaths: string[]) =>
      h.addPackage(
        manifestFixture('acme.files', version, ['config'], {
          config_schema: schema,
          permissions: { network: false, read_paths: readPaths, write_paths: [], env: [] },
        }),
        configReading(() => h),
      );
    await h.install.execute({ path: files('1.0.0', ['${config.root}/docs']), grants: ['read_paths'] });
    await h.configure.execute({ pluginId: 'acme.files', values: { root: '/srv', label: 'one' } });
    const refused = await configure
      .execute({ pluginId: 'acme.files', workspaceId: 'w2', values: { root: '/elsewhere', label: 'two' } })
      .catch((e: unknown) => e as ConfigInvalidError);
    expect(refused).toBeInstanceOf(ConfigInvalidError);
    expect((refused as ConfigInvalidError).violations).toEqual([
      { path: 'root', message: 'not applicable per workspace: permissions.read_paths[0] substitutes it, and permissions are granted per installation' },
    ]);
    expect(await list.execute('acme.files')).toEqual({ workspaces: [] });
    // A key no permission path substitutes is a workspace's to set.
    await configure.execute({ pluginId: 'acme.files', workspaceId: 'w2', values: { label: 'two' } });
    const upgrade = await h.upgrade
      .execute({ pluginId: 'acme.files', path: files('1.1.0', ['${config.root}/docs', '/opt/${config.label}']), grants: ['read_paths'] })
      .catch((e: unknown) => e as ConfigInvalidError);
    expect((upgrade as ConfigInvalidError).violations).toEqual([
      {
        path: 'workspaces.w2.label',
        message: 'not applicable per workspace: permissions.read_paths[1] substitutes it, and permissions are granted per installation',
      },
    ]);
    expect((await h.store.getPlugin('acme.files'))!.version).toBe('1.0.0');
  });

  it('removes every override with an uninstall', async () => {
    await configure.execute({ pluginId: 'acme.tracker', workspaceId: 'w2', values: { api_key: 'w2-key' } });
    await h.uninstall.execute('acme.tracker');
    expect(await h.store.listWorkspaceConfigs('acme.tracker')).toEqual([]);
    await expect(list.execute('acme.tracker')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
