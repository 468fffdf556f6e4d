import { BackendUrl } from '../../../src/application/sessions/backend-url';
import { StartSession } from '../../../src/application/sessions/start-session';
import { DeleteProfile } from '../../../src/application/scopes/delete-profile';
import { GetCatalogView } from '../../../src/application/scopes/get-catalog-view';
import { GetPluginScope } from '../../../src/application/scopes/get-plugin-scope';
import { GetProfile } from '../../../src/application/scopes/get-profile';
import { ListProfiles } from '../../../src/application/scopes/list-profiles';
import { SetPluginScope } from '../../../src/application/scopes/set-plugin-scope';
import { SetProfile } from '../../../src/application/scopes/set-profile';
import { DEFAULT_PROFILE, DEFAULT_SCOPE } from '../../../src/domain/scopes';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { sessionRecordFixture } from '../../support/fixtures';

describe('scope and profile use cases', () => {
  let h: BackendHarness;
  let getScope: GetPluginScope;
  let setScope: SetPluginScope;
  let listProfiles: ListProfiles;
  let getProfile: GetProfile;
  let setProfile: SetProfile;
  let deleteProfile: DeleteProfile;
  let view: GetCatalogView;
  const revision = () => h.catalog.current().revision;

  beforeEach(async () => {
    h = await createBackendHarness({ liveSession: false });
    getScope = h.container.get(GetPluginScope);
    setScope = h.container.get(SetPluginScope);
    listProfiles = h.container.get(ListProfiles);
    getProfile = h.container.get(GetProfile);
    setProfile = h.container.get(SetProfile);
    deleteProfile = h.container.get(DeleteProfile);
    view = h.container.get(GetCatalogView);
    await h.install.execute({ path: h.addEchoPackage('acme.notes', '1.0.0', ['add', 'list', 'remove']) });
    h.catalogChanges.length = 0;
  });

  afterEach(() => h.shutdown());

  describe('a plugin scope', () => {
    it('is the default until set, and NOT_FOUND for a plugin that is not installed', async () => {
      expect(await getScope.execute('acme.notes')).toEqual(DEFAULT_SCOPE);
      await expect(getScope.execute('acme.nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(setScope.execute({ pluginId: 'acme.nope', body: DEFAULT_SCOPE })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('is replaced whole in one revision and answered as stored; sending it again changes nothing', async () => {
      const before = revision();
      const body = { workspaces: ['ws-2', 'ws-1', 'ws-1'], disabled_tools: { 'ws-1': ['remove', 'add'], 'ws-2': [] } };
      const stored = { workspaces: ['ws-1', 'ws-2'], disabled_tools: { 'ws-1': ['add', 'remove'] } };
      expect(await setScope.execute({ pluginId: 'acme.notes', body })).toEqual(stored);
      expect(revision()).toBe(before + 1);
      expect(h.catalogChanges).toHaveLength(1);
      expect(await getScope.execute('acme.notes')).toEqual(stored);

      expect(await setScope.execute({ pluginId: 'acme.notes', body: stored })).toEqual(stored);
      expect(await setScope.execute({ pluginId: 'acme.notes', body })).toEqual(stored);
      expect(revision()).toBe(before + 1);
      expect(h.catalogChanges).toHaveLength(1);

      await setScope.execute({ pluginId: 'acme.notes', body: DEFAULT_SCOPE });
      expect(revision()).toBe(before + 2);
      expect(await getScope.execute('acme.notes')).toEqual(DEFAULT_SCOPE);
    });

    it('refuses a tool the installed version does not declare with SCOPE_INVALID, changing nothing', async () => {
      const before = revision();
      await expect(setScope.execute({ pluginId: 'acme.notes', body: { workspaces: '*', disabled_tools: { '*': ['add', 'purge'] } } })).rejects.toMatchObject({
        code: 'SCOPE_INVALID',
        details: [{ path: 'disabled_tools["*"][1]', message: '"purge" is not a tool the plugin declares' }],
      });
      expect(revision()).toBe(before);
      expect(await getScope.execute('acme.notes')).toEqual(DEFAULT_SCOPE);
    });

    it('survives an upgrade, a name the new version lacks kept and disabling nothing', async () => {
      const scope = { workspaces: '*', disabled_tools: { 'ws-1': ['add', 'remove'] } };
      await setScope.execute({ pluginId: 'acme.notes', body: scope });
      await h.upgrade.execute({ pluginId: 'acme.notes', path: h.addEchoPackage('acme.notes', '2.0.0', ['add', 'list', 'archive']) });
      expect(await getScope.execute('acme.notes')).toEqual(scope);
      const tools = view.execute({ workspace: 'ws-1', profile: 'default', surface: 'kanban-task' }).tools.map((t) => t.local_name);
      expect(tools).toEqual(['archive', 'list']);
      // Sending the kept scope back is no error; a name neither declared nor kept is.
      expect(await setScope.execute({ pluginId: 'acme.notes', body: { ...scope, disabled_tools: { 'ws-1': ['add', 'remove', 'archive'] } } })).toEqual({
        workspaces: '*',
        disabled_tools: { 'ws-1': ['add', 'archive', 'remove'] },
      });
      await expect(setScope.execute({ pluginId: 'acme.notes', body: { ...scope, disabled_tools: { 'ws-2': ['remove'] } } })).rejects.toMatchObject({
        code: 'SCOPE_INVALID',
      });
    });

    it('leaves with an uninstall: installed again, the plugin has the default scope', async () => {
      await setScope.execute({ pluginId: 'acme.notes', body: { workspaces: [], disabled_tools: {} } });
      await h.uninstall.execute('acme.notes');
      await h.install.execute({ path: h.addEchoPackage('acme.notes', '1.0.0', ['add', 'list', 'remove']) });
      expect(await getScope.execute('acme.notes')).toEqual(DEFAULT_SCOPE);
    });
  });

  describe('profiles', () => {
    it('lists default until others are set, then every one sorted by name', async () => {
      expect(await listProfiles.execute()).toEqual([DEFAULT_PROFILE]);
      await setProfile.execute({ name: 'zeta', body: { include: ['*'] } });
      await setProfile.execute({ name: 'alpha', body: { include: ['acme.notes'], exclude: ['*_remove'] } });
      expect((await listProfiles.execute()).map((p) => p.name)).toEqual(['alpha', 'default', 'zeta']);
      expect(await getProfile.execute('alpha')).toEqual({ name: 'alpha', include: ['acme.notes'], exclude: ['*_remove'] });
      await expect(getProfile.execute('beta')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('raises the revision by exactly one per change and not at all for a profile already stored', async () => {
      const before = revision();
      expect(await setProfile.execute({ name: 'ops', body: { include: ['b', 'a', 'a'] } })).toEqual({ name: 'ops', include: ['a', 'b'], exclude: [] });
      expect(revision()).toBe(before + 1);
      await setProfile.execute({ name: 'ops', body: { include: ['a', 'b'], exclude: [] } });
      expect(revision()).toBe(before + 1);
      await setProfile.execute({ name: 'default', body: { include: ['*'] } });
      expect(revision()).toBe(before + 1);
      await setProfile.execute({ name: 'default', body: { include: ['acme.*'] } });
      expect(revision()).toBe(before + 2);
      await deleteProfile.execute('ops');
      expect(revision()).toBe(before + 3);
      expect(h.catalogChanges).toHaveLength(3);
    });

    it('refuses a malformed profile with PROFILE_INVALID, changing nothing', async () => {
      const before = revision();
      await expect(setProfile.execute({ name: 'Ops', body: { exclude: [] } })).rejects.toMatchObject({
        code: 'PROFILE_INVALID',
        details: [
          { path: 'name', message: expect.any(String) },
          { path: 'include', message: 'is required' },
        ],
      });
      expect(revision()).toBe(before);
    });

    it('never deletes default, and NOT_FOUND for one that does not exist', async () => {
      await setProfile.execute({ name: 'default', body: { include: ['acme.*'] } });
      await expect(deleteProfile.execute('default')).rejects.toMatchObject({ code: 'PROFILE_PROTECTED' });
      expect(await getProfile.execute('default')).toEqual({ name: 'default', include: ['acme.*'], exclude: [] });
      await expect(deleteProfile.execute('ghost')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('refuses to delete a profile a session that is not stopped uses, naming those sessions', async () => {
      await setProfile.execute({ name: 'ops', body: { include: ['*'] } });
      await h.store.saveSession(sessionRecordFixture({ session_id: 's-live', profile: 'ops', status: 'live' }));
      await h.store.saveSession(sessionRecordFixture({ session_id: 's-dead', profile: 'ops', status: 'dead' }));
      await h.store.saveSession(sessionRecordFixture({ session_id: 's-stopped', profile: 'ops', status: 'stopped' }));
      await h.store.saveSession(sessionRecordFixture({ session_id: 's-other', profile: 'default', status: 'live' }));
      const before = revision();
      await expect(deleteProfile.execute('ops')).rejects.toMatchObject({
        code: 'PROFILE_IN_USE',
        details: { sessions: ['s-live', 's-dead'], rules: [] },
      });
      expect(revision()).toBe(before);
      await h.store.saveSession(sessionRecordFixture({ session_id: 's-live', profile: 'ops', status: 'stopped' }));
      await h.store.saveSession(sessionRecordFixture({ session_id: 's-dead', profile: 'ops', status: 'stopped' }));
      await deleteProfile.execute('ops');
      await expect(getProfile.execute('ops')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });

  describe('a session', () => {
    let start: StartSession;
    beforeEach(() => {
      h.container.get(BackendUrl).set('http://127.0.0.1:7800');
      start = h.container.get(StartSession);
    });

    it('starts with the profile it names, default when none, and carries it on its record', async () => {
      await setProfile.execute({ name: 'ops', body: { include: ['*'] } });
      const named = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile: 'ops', launch: false });
      const plain = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', launch: false });
      expect(named.profile).toBe('ops');
      expect(plain.profile).toBe('default');
      expect((await h.store.getSession(named.session_id))?.profile).toBe('ops');
    });

    it('refuses a profile that does not exist with UNKNOWN_PROFILE, storing no session', async () => {
      await expect(start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile: 'ghost', launch: false })).rejects.toMatchObject({
        code: 'UNKNOWN_PROFILE',
      });
      expect(await h.store.listSessions()).toEqual([]);
    });
  });

  describe('a session start and a profile deletion', () => {
    let start: StartSession;
    beforeEach(() => {
      h.container.get(BackendUrl).set('http://127.0.0.1:7800');
      start = h.container.get(StartSession);
    });
    const startWith = (profile: string) => start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile, launch: false });

    it("find the profile in the store, not in this backend's copy of the policy (which another replica's change may not have reached)", async () => {
      // Written straight to the store, as another replica's commit is: this backend's catalog has not heard of either change.
      await h.store.transaction((tx) => tx.saveProfile({ name: 'elsewhere', include: ['*'], exclude: [] }));
      expect((await startWith('elsewhere')).profile).toBe('elsewhere');
      await setProfile.execute({ name: 'gone', body: { include: ['*'] } });
      await h.store.transaction((tx) => tx.deleteProfile('gone'));
      await expect(startWith('gone')).rejects.toMatchObject({ code: 'UNKNOWN_PROFILE' });
      expect((await h.store.listSessions()).map((s) => s.profile)).toEqual(['elsewhere']);
    });

    it('never both succeed when they run at once: the session is refused, or the deletion names it', async () => {
      for (let round = 0; round < 20; round += 1) {
        const name = `p-${round}`;
        await setProfile.execute({ name, body: { include: ['*'] } });
        const [started, deleted] = await Promise.allSettled([startWith(name), deleteProfile.execute(name)]);
        const stored = (await h.store.listSessions()).filter((s) => s.profile === name);
        if (deleted.status === 'fulfilled') {
          expect(started).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: 'UNKNOWN_PROFILE' }) });
          expect(stored).toEqual([]);
        } else {
          expect(deleted.reason).toMatchObject({ code: 'PROFILE_IN_USE', details: { sessions: stored.map((s) => s.session_id) } });
          expect(started.status).toBe('fulfilled');
        }
      }
    });
  });

  describe('the catalog view', () => {
    it("answers a view's effective tools with the whole catalog's generation and revision", async () => {
      await setScope.execute({ pluginId: 'acme.notes', body: { workspaces: ['ws-1', 'ws-2'], disabled_tools: { 'ws-2': ['remove'] } } });
      await setProfile.execute({ name: 'no-lists', body: { include: ['*'], exclude: ['*_list'] } });
      const whole = h.catalog.current();
      const names = (workspace: string, profile: string) => view.execute({ workspace, profile, surface: 'kanban-task' }).tools.map((t) => t.local_name);
      expect(view.execute({ workspace: 'ws-1', profile: 'default', surface: 'kanban-task' })).toEqual({ ...whole });
      expect(names('ws-2', 'default')).toEqual(['add', 'list']);
      expect(names('ws-2', 'no-lists')).toEqual(['add']);
      expect(names('ws-3', 'default')).toEqual([]);
      expect(view.execute({ workspace: 'ws-2', profile: 'default', surface: 'configuration' }).tools).toEqual([]);
      expect(view.execute({ workspace: 'ws-2', profile: 'no-lists', surface: 'kanban-task' })).toMatchObject({
        generation: whole.generation,
        revision: whole.revision,
      });
      expect(() => view.execute({ workspace: 'ws-1', profile: 'ghost', surface: 'kanban-task' })).toThrow(expect.objectContaining({ code: 'UNKNOWN_PROFILE' }));
    });
  });
});
