import { PluginViews } from '../../../src/application/plugins/plugin-views';
import { ToolportError } from '../../../src/domain/errors';
import type { PluginPermissions } from '../../../src/domain/permissions';
import type { PluginRecord } from '../../../src/domain/plugin-record';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { manifestFixture } from '../../support/fixtures';

function permissions(overrides: Partial<PluginPermissions>): PluginPermissions {
  return { network: false, read_paths: [], write_paths: [], env: [], ...overrides };
}

async function refusal(promise: Promise<unknown>): Promise<ToolportError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof ToolportError)) throw new Error(`expected a ToolportError, got ${String(error)}`);
  return error;
}

/** Grants at install and upgrade (docs/lifecycle.md, "Permissions and grants"). */
describe('permission grants', () => {
  let h: BackendHarness;
  beforeEach(async () => {
    h = await createBackendHarness({ hostFolders: ['/srv'] });
  });
  afterEach(() => h.shutdown());
  const view = (record: PluginRecord) => h.container.get(PluginViews).one(record);

  const asking = (version: string, asked: Partial<PluginPermissions>, overrides = {}) =>
    h.addPackage(manifestFixture('acme.net', version, ['fetch'], { permissions: permissions(asked), ...overrides }));

  describe('at install', () => {
    it('refuses a package asking for permissions not granted, naming each, and keeps nothing', async () => {
      const error = await refusal(h.install.execute({ path: asking('1.0.0', { network: true, env: ['HTTPS_PROXY'] }), grants: ['env'] }));

      expect(error.code).toBe('PERMISSION_NOT_GRANTED');
      expect((error.details as Array<{ path: string }>).map((d) => d.path)).toEqual(['permissions.network']);
      expect(await h.store.getPlugin('acme.net')).toBeUndefined();
      expect(h.packages.installedVersions('acme.net')).toEqual([]);
      expect(h.runtime.runningInstances()).toEqual([]);
      expect(h.catalogChanges).toEqual([]);
    });

    it('refuses before needs_config: a plugin waiting for its configuration is not kept either', async () => {
      const schema = { type: 'object', properties: { root: { type: 'string' } }, required: ['root'] };
      const path = asking('1.0.0', { read_paths: ['${config.root}'] }, { config_schema: schema });

      const error = await refusal(h.install.execute({ path }));

      expect(error.code).toBe('PERMISSION_NOT_GRANTED');
      expect(await h.store.getPlugin('acme.net')).toBeUndefined();
      await expect(h.install.execute({ path, grants: ['read_paths'] })).resolves.toMatchObject({ status: 'needs_config' });
    });

    it('accepts what is granted, ignores grants for permissions not asked, and shows the permissions on the record', async () => {
      const record = await h.install.execute({ path: asking('1.0.0', { network: true }), grants: ['network', 'write_paths', 'env'] });

      expect(record.status).toBe('active');
      expect((await view(record)).permissions).toEqual(permissions({ network: true }));
    });

    it('needs no grant for a plugin that asks for nothing, whose record shows every key empty', async () => {
      const record = await h.install.execute({ path: h.addEchoPackage('acme.plain', '1.0.0', ['echo']) });
      expect((await view(record)).permissions).toEqual(permissions({}));
    });
  });

  describe('at upgrade', () => {
    beforeEach(async () => {
      await h.install.execute({ path: asking('1.0.0', { network: true, read_paths: ['/srv/shared'] }), grants: ['network', 'read_paths'] });
      h.catalogChanges.length = 0;
    });

    it('needs no grant for what the running version already has', async () => {
      const record = await h.upgrade.execute({ pluginId: 'acme.net', path: asking('1.1.0', { network: true, read_paths: ['/srv/shared'] }) });
      expect(record).toMatchObject({ version: '1.1.0', status: 'active' });
    });

    it('refuses a version whose permissions grow without a grant, the old version still running', async () => {
      const before = await h.store.getPlugin('acme.net');
      const serving = h.running.instanceOf('acme.net')!;

      const error = await refusal(
        h.upgrade.execute({
          pluginId: 'acme.net',
          path: asking('1.1.0', { network: true, read_paths: ['/srv/shared', '/srv/more'], env: ['A'] }),
          grants: ['env'],
        }),
      );

      expect(error.code).toBe('PERMISSION_NOT_GRANTED');
      expect(error.details).toEqual([{ path: 'permissions.read_paths', message: expect.stringContaining('"/srv/more"') }]);
      expect(await h.store.getPlugin('acme.net')).toEqual(before);
      expect(h.running.instanceOf('acme.net')).toBe(serving);
      expect(h.runtime.isAlive(serving.pid()!)).toBe(true);
      expect(h.packages.installedVersions('acme.net')).toEqual(['1.0.0']);
    });

    it('accepts the growth once granted', async () => {
      const record = await h.upgrade.execute({
        pluginId: 'acme.net',
        path: asking('1.1.0', { network: true, write_paths: ['/srv/out'] }),
        grants: ['write_paths'],
      });
      expect((await view(record)).permissions).toEqual(permissions({ network: true, write_paths: ['/srv/out'] }));
    });

    it('checks install --force of the installed plugin as an upgrade', async () => {
      const error = await refusal(h.install.execute({ path: asking('1.0.0', { network: true, env: ['PROXY'] }), force: true }));
      expect(error.code).toBe('PERMISSION_NOT_GRANTED');
      await expect(h.install.execute({ path: asking('1.0.0', { network: true, env: ['PROXY'] }), force: true, grants: ['env'] })).resolves.toMatchObject({
        status: 'active',
      });
    });
  });
});
