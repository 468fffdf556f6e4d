import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { c as createTar } from 'tar';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../support/processes/toolport-paths';
import { ConsoleBrowser, focusedName, goTo, storedToken, tryInlineStyle, walkFocus } from '../../support/browser/console-browser';
import { eventually } from '../../support/eventually';
import { hostileTgz } from '../../support/packages/hostile-tgz';
import { configProbe, stderrProbe } from '../../support/packages/console-probes';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import type { McpAgent } from '../../support/clients/mcp-agent';

jest.setTimeout(30_000);

const ECHO = 'toolport.echo';
const CANARY = 'canary-argument-7d41f0';
const STDERR_LINE = 'log probe: warmed up and listening';
const CONFIG = 'config.probe';
const SECRET = 'secret-api-key-91c3e7';
const CRASH = 'crash.probe';
/** The console's contract: a change reaches an open page within 3 s, with no reload. */
const LIVE_MS = 3000;

/** The operator console in a real chromium against a real backend, its plugins and a real MCP client. */
describe('console', () => {
  const world = new BackendWorld([], { prefix: 'toolport-console-' });
  const browser = new ConsoleBrowser(() => world.backend.url);
  let session: StartedSession;
  let agent: McpAgent;

  const signedIn = async (path = '#/overview'): Promise<{ page: Page; problems: string[] }> => {
    const opened = await browser.open(`/console/#token=${encodeURIComponent(world.backend.token)}`);
    await opened.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    if (path !== '#/overview') await goTo(opened.page, path);
    return opened;
  };

  beforeAll(async () => {
    await world.start();
    await world.install(join(REPO_ROOT, 'examples', 'plugins', 'echo'));
    await world.install(writePluginPackage(join(world.root, 'probe'), stderrProbe('log.probe', STDERR_LINE)));
    await world.install(writePluginPackage(join(world.root, 'config-probe'), configProbe(CONFIG, SECRET)));
    await world.install(writeProbePlugin(join(world.root, 'crash-probe'), CRASH, ['crash']));
    session = await world.session('kanban-task', 'T-console');
    agent = await world.agent(session, 'console-e2e');
    await browser.start();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 30_000);

  it('signs in with the form: a wrong token is refused in place, the right one opens the console', async () => {
    const { page, problems } = await browser.open('/console/');
    const field = page.getByLabel('Admin token');
    await field.fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'refused that token' }).waitFor();
    await field.fill(world.backend.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console pages' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    // The tab keeps its sign-in's credential, never the admin token.
    expect(await storedToken(page)).toMatch(/^credential:tpc1_/);
    expect(await storedToken(page)).not.toContain(world.backend.token);
    expect(page.url()).not.toContain(world.backend.token);
    // The sign-in's refused check is the one 401 this page may log.
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it('signs in directly from #token=…, takes the token out of the address, and stays signed in on reload', async () => {
    const { page, problems } = await signedIn();
    expect(page.url()).toMatch(/\/console\/#\/overview$/);
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.getByRole('button', { name: 'Sign out of the console' }).click();
    await page.getByLabel('Admin token').waitFor();
    expect(await storedToken(page)).toBeNull();
    expect(problems).toEqual([]);
  });

  it('disables and enables a plugin with its buttons; its row follows live, also for a change made elsewhere, with no polling', async () => {
    const { page, problems } = await signedIn('#/plugins');
    const requests: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/')) requests.push(`${request.method()} ${path}`);
    });
    const row = page.getByRole('row', { name: `Plugin ${ECHO}` });
    await row.locator('.badge', { hasText: 'active' }).waitFor();

    await answered(page, 'POST', `/api/v1/plugins/${ECHO}/disable`, () => page.getByRole('button', { name: `Disable ${ECHO}` }).click());
    await row.locator('.badge', { hasText: 'disabled' }).waitFor({ timeout: LIVE_MS });
    await answered(page, 'POST', `/api/v1/plugins/${ECHO}/enable`, () => page.getByRole('button', { name: `Enable ${ECHO}` }).click());
    await row.locator('.badge', { hasText: 'active' }).waitFor({ timeout: LIVE_MS });

    // Another operator disables it through the API: the open page hears it on its channel.
    expect((await world.api('POST', `/api/v1/plugins/${ECHO}/disable`)).status).toBe(200);
    await row.locator('.badge', { hasText: 'disabled' }).waitFor({ timeout: LIVE_MS });
    expect((await world.api('POST', `/api/v1/plugins/${ECHO}/enable`)).status).toBe(200);
    await row.locator('.badge', { hasText: 'active' }).waitFor({ timeout: LIVE_MS });

    // Only the two button presses went out: every change came in on the open channel.
    expect(requests).toEqual([`POST /api/v1/plugins/${ECHO}/disable`, `POST /api/v1/plugins/${ECHO}/enable`]);
    expect(problems).toEqual([]);
  });

  it('shows a call made by a real MCP client as it happens, with its session and outcome, and never its arguments', async () => {
    const { page, problems } = await signedIn('#/calls');
    await page.getByRole('heading', { name: 'Calls' }).waitFor();
    const result = await agent.call('kandev_toolport_echo_echo', { message: CANARY });
    expect(JSON.stringify(result)).toContain(CANARY);
    const row = page.getByRole('row', { name: `Call of kandev_toolport_echo_echo from session ${session.session_id}` });
    await row.waitFor({ timeout: LIVE_MS });
    expect(await row.locator('.badge').textContent()).toBe('success');
    expect(await page.content()).not.toContain(CANARY);
    await goTo(page, '#/overview');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.content()).not.toContain(CANARY);
    expect(problems).toEqual([]);
  });

  it('follows a plugin that crashes in a call: the failed call, then its restart and its last error with the time', async () => {
    const { page, problems } = await signedIn('#/plugins');
    const row = page.getByRole('row', { name: `Plugin ${CRASH}` });
    await row.locator('.badge', { hasText: 'active' }).waitFor();
    await agent.call('kandev_crash_probe_crash').catch(() => undefined);
    await row.getByText('plugin process exited (exit code 3)').waitFor({ timeout: LIVE_MS });
    await row.locator('.badge', { hasText: 'active' }).waitFor({ timeout: 10_000 });
    // Version, status, then restarts: the one restart that brought it back.
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('1');
    const when = Date.parse((await row.locator('time').getAttribute('datetime')) ?? '');
    expect(Math.abs(Date.now() - when)).toBeLessThan(60_000);

    await goTo(page, '#/calls');
    const call = page.getByRole('row', { name: `Call of kandev_crash_probe_crash from session ${session.session_id}` });
    expect(await call.locator('.badge').textContent()).toBe('error');
    await call.getByRole('cell', { name: 'PLUGIN_CRASHED' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('installs by upload, and shows the API’s refusal of a broken package in place', async () => {
    const { page, problems } = await signedIn('#/plugins');
    const form = page.getByRole('form', { name: 'Install a plugin' });
    const broken = hostileTgz([{ name: 'manifest.yaml', type: 'file', content: 'api_version: 1\nid: Not A Valid Id\nversion: one\n' }]);
    await form.getByLabel('Package (.tgz)').setInputFiles({ name: 'broken.tgz', mimeType: 'application/gzip', buffer: broken });
    await form.getByRole('button', { name: 'Install' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('INVALID_PACKAGE');
    expect(await alert.locator('li code').allTextContents()).toEqual(expect.arrayContaining(['id', 'version']));

    const dir = writePluginPackage(join(world.root, 'upload', 'package'), stderrProbe('upload.probe', 'uploaded'));
    const tgz = join(world.root, 'upload.tgz');
    await createTar({ gzip: true, file: tgz, cwd: join(dir, '..') }, ['package']);
    await form.getByLabel('Package (.tgz)').setInputFiles({ name: 'upload.tgz', mimeType: 'application/gzip', buffer: readFileSync(tgz) });
    await form.getByRole('button', { name: 'Install' }).click();
    await form.getByRole('status').filter({ hasText: 'Installed.' }).waitFor({ timeout: 15_000 });
    await page.getByRole('row', { name: 'Plugin upload.probe' }).locator('.badge', { hasText: 'active' }).waitFor({ timeout: LIVE_MS });
    expect(await form.getByRole('alert').count()).toBe(0);
    expect(problems.filter((p) => !p.includes('422'))).toEqual([]);
  });

  it('shows a plugin’s log with its stderr line, and new records as they are written', async () => {
    const { page, problems } = await signedIn('#/plugins/log.probe/log');
    await page.getByRole('heading', { name: 'Log of log.probe' }).waitFor();
    await page.getByRole('cell', { name: STDERR_LINE }).waitFor();
    expect((await world.api('POST', '/api/v1/plugins/log.probe/disable')).status).toBe(200);
    await page.getByRole('cell', { name: 'plugin disabled', exact: true }).waitFor({ timeout: LIVE_MS });
    expect((await world.api('POST', '/api/v1/plugins/log.probe/enable')).status).toBe(200);
    expect(problems).toEqual([]);
  });

  it('stops a session with its button; the row follows', async () => {
    const other = await world.session('office-task', 'T-stop-me');
    const { page, problems } = await signedIn('#/sessions');
    const row = page.getByRole('row', { name: `Session ${other.session_id}` });
    await row.locator('.badge', { hasText: 'live' }).waitFor({ timeout: LIVE_MS });
    await answered(page, 'DELETE', `/api/v1/sessions/${other.session_id}`, () =>
      page.getByRole('button', { name: `Stop session ${other.session_id}` }).click(),
    );
    await row.locator('.badge', { hasText: 'stopped' }).waitFor({ timeout: LIVE_MS });
    expect(await page.getByRole('button', { name: `Stop session ${other.session_id}` }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('is usable with the keyboard: a page starts at its heading, Tab reaches a plugin’s buttons, Shift+Tab the pages, Enter presses them', async () => {
    const { page, problems } = await signedIn('#/plugins');
    const row = page.getByRole('row', { name: `Plugin ${ECHO}` });
    await row.locator('.badge', { hasText: 'active' }).waitFor();
    expect(await focusedName(page)).toBe('Plugins');

    const forward = await walkFocus(page, 'Tab', `Disable ${ECHO}`);
    expect(forward).toEqual(['Package (.tgz)', ECHO, `Disable ${ECHO}`]);
    await answered(page, 'POST', `/api/v1/plugins/${ECHO}/disable`, () => page.keyboard.press('Enter'));
    await row.locator('.badge', { hasText: 'disabled' }).waitFor({ timeout: LIVE_MS });
    // The pressed button keeps the focus as it turns into its opposite, and once its request
    // has answered (the channel may say `disabled` first), Enter again undoes it.
    await page
      .getByRole('button', { name: `Enable ${ECHO}` })
      .and(page.locator(':focus[aria-busy="false"]'))
      .waitFor({ timeout: LIVE_MS });
    await answered(page, 'POST', `/api/v1/plugins/${ECHO}/enable`, () => page.keyboard.press('Enter'));
    await row.locator('.badge', { hasText: 'active' }).waitFor({ timeout: LIVE_MS });

    await page.getByRole('heading', { name: 'Plugins' }).focus();
    const back = await walkFocus(page, 'Shift+Tab', 'Overview');
    expect(back).toEqual(['Sign out of the console', 'Approvals', 'Calls', 'Sessions', 'Profiles', 'Catalog', 'Plugins', 'Overview']);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('Catalog');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Catalog' }).waitFor();
    expect(await focusedName(page)).toBe('Catalog');
    expect(problems).toEqual([]);
  });

  it('shows on a plugin’s page what it may reach: how it runs, its network, each granted path and name', async () => {
    const { page, problems } = await signedIn(`#/plugins/${ECHO}`);
    const reach = page.getByRole('list', { name: `What ${ECHO} may reach` });
    await reach.waitFor();
    const record = (await world.api('GET', `/api/v1/plugins/${ECHO}`)).body as { uid: number | null; sandbox: { mode: string } };
    const as = record.uid === null ? "as the backend's user" : `as uid ${record.uid}`;
    expect(await reach.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining(`Sandbox: ${record.sandbox.mode}, ${as}`),
      'Network: none (a loopback of its own)',
      'Read: none',
      'Write: none',
      'Env: none',
    ]);
    expect(problems).toEqual([]);
  });

  it('shows a plugin’s configuration with its secret masked, and saving the form keeps the secret', async () => {
    expect((await world.api('PUT', `/api/v1/plugins/${CONFIG}/config`, { values: { region: 'north', api_key: SECRET } })).status).toBe(200);
    const { page, problems } = await signedIn(`#/plugins/${CONFIG}`);
    const form = page.getByRole('form', { name: `Configuration of ${CONFIG}` });
    const region = form.getByLabel('region');
    const key = form.getByLabel('api_key (secret)');
    await key.waitFor();
    expect(await key.getAttribute('type')).toBe('password');
    expect(await key.inputValue()).toBe('********');
    expect(await region.inputValue()).toBe('north');
    expect(await page.content()).not.toContain(SECRET);

    await region.fill('south');
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 15_000 });
    // The plugin was restarted with the new region and still holds the key it was given.
    const answer = await agent.call('kandev_config_probe_whoami');
    expect(answer.content).toEqual([{ type: 'text', text: 'region=south key=expected' }]);
    expect(await page.content()).not.toContain(SECRET);
    expect(problems).toEqual([]);
  });

  it('serves every page under a strict Content-Security-Policy, with no console error or violation on any of them', async () => {
    const answer = await fetch(new URL('/console/', world.backend.url));
    expect(answer.status).toBe(200);
    const csp = answer.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(directive);
    const page = await answer.text();
    expect(page).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>|style=/);

    const { page: browserPage, problems } = await signedIn();
    // Each page with what it loads besides the channel's state (a form, a log) in place.
    const pages: Array<[string, string, string?]> = [
      ['#/overview', 'Overview'],
      ['#/plugins', 'Plugins', 'Install a plugin'],
      [`#/plugins/${ECHO}`, 'Echo'],
      [`#/plugins/${CONFIG}`, 'Config probe', `Configuration of ${CONFIG}`],
      [`#/plugins/${ECHO}`, 'Echo', `Scope of ${ECHO}`],
      ['#/catalog', 'Catalog'],
      ['#/profiles', 'Profiles', 'New profile'],
      ['#/sessions', 'Sessions'],
      ['#/calls', 'Calls'],
      ['#/approvals', 'Approvals'],
      [`#/plugins/${ECHO}/log`, `Log of ${ECHO}`],
    ];
    for (const [hash, heading, form] of pages) {
      await goTo(browserPage, hash);
      await browserPage.getByRole('heading', { name: heading, exact: true }).waitFor();
      if (form) await browserPage.getByRole('form', { name: form }).waitFor();
    }
    await browserPage.getByRole('cell', { name: 'plugin started', exact: true }).first().waitFor();
    expect(problems).toEqual([]);

    // The watch bites: an inline style, which the policy refuses, is reported.
    await tryInlineStyle(browserPage);
    await eventually(() => problems.some((p) => p.includes('CSP violation: style-src')), 3000, 'the refused inline style to be reported');
  });
});

/**
 * Runs `act` and waits for the console's `method path` request to be answered: the change is
 * committed by then, so what follows measures only how fast the page hears of it (the time a
 * loaded machine takes to start or stop a process is not the console's).
 */
async function answered(page: Page, method: string, path: string, act: () => Promise<void>): Promise<void> {
  const response = page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname === path, { timeout: 20_000 });
  await act();
  await response;
}
