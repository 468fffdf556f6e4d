import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../support/processes/toolport-paths';
import { ConsoleBrowser, goTo } from '../../support/browser/console-browser';
import { BackendWorld } from '../../support/processes/backend-world';

jest.setTimeout(30_000);

const NOTES = 'toolport.notes';
/** The console's contract: a change reaches an open page within 3 s, with no reload. */
const LIVE_MS = 3000;

/** The console's scope editor, Profiles page and the Sessions page's workspace and profile, in a real chromium against a real backend. */
describe('console: scopes and profiles', () => {
  const world = new BackendWorld([], { prefix: 'toolport-console-scopes-' });
  const browser = new ConsoleBrowser(() => world.backend.url);

  const signedIn = async (path: string): Promise<{ page: Page; problems: string[] }> => {
    const opened = await browser.open(`/console/#token=${encodeURIComponent(world.backend.token)}`);
    await opened.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await goTo(opened.page, path);
    return opened;
  };

  /** The exposed names of the effective view for one workspace, profile and surface. */
  const viewNames = async (workspace: string, profile = 'default', surface = 'kanban-task'): Promise<string[]> => {
    const query = new URLSearchParams({ workspace, profile, surface });
    const answer = await world.api<{ tools: Array<{ exposed_name: string }> }>('GET', `/api/v1/catalog?${query}`);
    expect(answer.status).toBe(200);
    return answer.body.tools.map((t) => t.exposed_name);
  };

  beforeAll(async () => {
    await world.start();
    await world.install(join(REPO_ROOT, 'examples', 'plugins', 'echo'));
    await world.install(join(REPO_ROOT, 'examples', 'plugins', 'notes'));
    await browser.start();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 30_000);

  it('sets a plugin’s scope to one workspace with a tool turned off there: stored as sent, and the catalog view follows', async () => {
    expect(await viewNames('ws-a')).toEqual(expect.arrayContaining(['kandev_toolport_notes_add_note', 'kandev_toolport_notes_list_notes']));
    const { page, problems } = await signedIn(`#/plugins/${NOTES}`);
    const form = page.getByRole('form', { name: `Scope of ${NOTES}` });
    await form.getByRole('radio', { name: `All workspaces for ${NOTES}` }).waitFor();
    expect(await form.getByRole('radio', { name: `All workspaces for ${NOTES}` }).isChecked()).toBe(true);
    expect(await form.getByLabel(`Workspaces of ${NOTES}`).isDisabled()).toBe(true);

    await form.getByRole('radio', { name: `Only the workspaces listed for ${NOTES}` }).check();
    await form.getByLabel(`Workspaces of ${NOTES}`).fill('ws-a');
    await form.getByLabel(`Workspace row to add for ${NOTES}`).fill('ws-a');
    await form.getByRole('button', { name: `Add a workspace row for ${NOTES}` }).click();
    await form.getByRole('checkbox', { name: 'Disable add_note in ws-a' }).check();
    await form.getByRole('button', { name: `Save scope of ${NOTES}` }).click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 15_000 });

    const stored = await world.api('GET', `/api/v1/plugins/${NOTES}/scope`);
    expect(stored).toMatchObject({ status: 200, body: { workspaces: ['ws-a'], disabled_tools: { 'ws-a': ['add_note'] } } });
    const inA = await viewNames('ws-a');
    expect(inA).toEqual(expect.arrayContaining(['kandev_toolport_notes_list_notes', 'kandev_toolport_echo_echo']));
    expect(inA).not.toContain('kandev_toolport_notes_add_note');
    expect((await viewNames('ws-b')).filter((name) => name.startsWith('kandev_toolport_notes_'))).toEqual([]);
    // The page shows the scope as stored, and so does a fresh one.
    expect(await form.getByRole('checkbox', { name: 'Disable add_note in ws-a' }).isChecked()).toBe(true);
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.getByRole('checkbox', { name: 'Disable add_note in ws-a' }).waitFor();
    expect(await page.getByLabel(`Workspaces of ${NOTES}`).inputValue()).toBe('ws-a');
    expect(problems).toEqual([]);
  });

  it('shows the API’s refusal of a scope with each path it names', async () => {
    // Workspace ids are at most 256 characters, as at a session's start.
    const { page, problems } = await signedIn(`#/plugins/${NOTES}`);
    const form = page.getByRole('form', { name: `Scope of ${NOTES}` });
    await form.getByLabel(`Workspaces of ${NOTES}`).waitFor();
    await form.getByLabel(`Workspaces of ${NOTES}`).fill(`ws-a, ${'w'.repeat(300)}`);
    await form.getByRole('button', { name: `Save scope of ${NOTES}` }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor({ timeout: 15_000 });
    expect(await alert.textContent()).toContain('SCOPE_INVALID');
    expect((await alert.locator('li code').allTextContents()).some((path) => path.startsWith('workspaces'))).toBe(true);
    // Nothing changed.
    expect((await world.api('GET', `/api/v1/plugins/${NOTES}/scope`)).body).toEqual({ workspaces: ['ws-a'], disabled_tools: { 'ws-a': ['add_note'] } });
    expect(problems.filter((p) => !p.includes('422'))).toEqual([]);
  });

  it('creates a profile and lists it, refuses to delete default, and deletes the new one', async () => {
    const { page, problems } = await signedIn('#/profiles');
    await page.getByRole('heading', { name: 'Profiles', exact: true }).waitFor();
    await page.getByRole('row', { name: 'Profile default' }).waitFor();

    const form = page.getByRole('form', { name: 'New profile' });
    await form.getByLabel('Profile name').fill('echo-only');
    await form.getByLabel('Include patterns of the new profile').fill('toolport.echo\n');
    await form.getByRole('button', { name: 'Create profile' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved profile echo-only.' }).waitFor({ timeout: 15_000 });
    const row = page.getByRole('row', { name: 'Profile echo-only' });
    await row.waitFor({ timeout: LIVE_MS });
    expect(await row.getByLabel('Include patterns of echo-only').inputValue()).toBe('toolport.echo');
    expect((await world.api('GET', '/api/v1/profiles/echo-only')).body).toEqual({ name: 'echo-only', include: ['toolport.echo'], exclude: [] });
    expect(await viewNames('ws-a', 'echo-only')).toEqual(['kandev_toolport_echo_echo']);

    // Edited in place: the exclude pattern narrows it to nothing.
    await row.getByLabel('Exclude patterns of echo-only').fill('*echo*');
    await row.getByRole('button', { name: 'Save profile echo-only' }).click();
    await row.getByRole('status').filter({ hasText: 'Saved.' }).waitFor({ timeout: 15_000 });
    expect((await world.api('GET', '/api/v1/profiles/echo-only')).body).toMatchObject({ exclude: ['*echo*'] });
    expect(await viewNames('ws-a', 'echo-only')).toEqual([]);

    const defaultRow = page.getByRole('row', { name: 'Profile default' });
    await defaultRow.getByRole('button', { name: 'Delete profile default' }).click();
    const refusal = defaultRow.getByRole('alert');
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.textContent()).toContain('PROFILE_PROTECTED');
    expect((await world.api('GET', '/api/v1/profiles/default')).status).toBe(200);

    await row.getByRole('button', { name: 'Delete profile echo-only' }).click();
    await row.waitFor({ state: 'detached', timeout: LIVE_MS });
    expect((await world.api('GET', '/api/v1/profiles/echo-only')).status).toBe(404);
    expect(problems.filter((p) => !p.includes('409'))).toEqual([]);
  });

  it('shows each session’s workspace and profile, and names the sessions that keep a profile from being deleted', async () => {
    expect((await world.api('PUT', '/api/v1/profiles/notes-only', { include: ['toolport.notes'] })).status).toBe(200);
    const started = await world.api<{ session_id: string }>('POST', '/api/v1/sessions', {
      task_id: 'T-scoped',
      workspace_id: 'ws-a',
      surface: 'kanban-task',
      profile: 'notes-only',
      launch: false,
    });
    expect(started.status).toBe(201);
    const id = started.body.session_id;

    const { page, problems } = await signedIn('#/sessions');
    const row = page.getByRole('row', { name: `Session ${id}` });
    await row.waitFor({ timeout: LIVE_MS });
    // Session, then task, workspace, profile.
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('ws-a');
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('notes-only');
    expect(await page.getByRole('columnheader').allTextContents()).toEqual(expect.arrayContaining(['Workspace', 'Profile']));

    await goTo(page, '#/profiles');
    const profile = page.getByRole('row', { name: 'Profile notes-only' });
    await profile.getByRole('button', { name: 'Delete profile notes-only' }).click();
    const refusal = profile.getByRole('alert');
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.textContent()).toContain('PROFILE_IN_USE');
    expect(await refusal.locator('code').allTextContents()).toEqual([id]);
    expect((await world.api('GET', '/api/v1/profiles/notes-only')).status).toBe(200);
    expect(problems.filter((p) => !p.includes('409'))).toEqual([]);
  });
});
