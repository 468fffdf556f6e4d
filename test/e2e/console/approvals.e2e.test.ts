import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { resultText } from '../../support/clients/mcp-agent';
import { ConsoleBrowser, goTo } from '../../support/browser/console-browser';
import { BackendWorld } from '../../support/processes/backend-world';
import { REPO_ROOT } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const ECHO = 'kandev_toolport_echo_echo';

/** The console's Approvals page in a real chromium: a held call appears live, and Approve and Deny decide it. */
describe('console: approvals', () => {
  const world = new BackendWorld([], { prefix: 'toolport-console-approvals-', workspace: 'prod' });
  const browser = new ConsoleBrowser(() => world.backend.url);
  let agent: Awaited<ReturnType<BackendWorld['agent']>>;

  const signedIn = async (path: string): Promise<{ page: Page; problems: string[] }> => {
    const opened = await browser.open(`/console/#token=${encodeURIComponent(world.backend.token)}`);
    await opened.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await goTo(opened.page, path);
    return opened;
  };

  beforeAll(async () => {
    await world.start();
    await world.install(join(REPO_ROOT, 'examples', 'plugins', 'echo'));
    const rules = await world.api('PUT', '/api/v1/approval-rules', [{ workspace: 'prod', profile: '*', tools: ECHO, mode: 'operator' }]);
    expect(rules.status).toBe(200);
    agent = await world.agent(await world.session('kanban-task'));
    await browser.start();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 30_000);

  it('shows a held call as it arrives, and Approve lets it through', async () => {
    const { page, problems } = await signedIn('#/approvals');
    await page.getByText('No call awaits approval.').waitFor();
    const call = agent.call(ECHO, { message: 'hello' });
    const approve = page.getByRole('button', { name: new RegExp(`^Approve ${ECHO} for session `) });
    await approve.waitFor();
    const row = page.getByRole('row', { name: /^Approval request / });
    expect(await row.getByRole('cell', { name: 'prod' }).count()).toBe(1);
    await approve.click();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('hello');
    await page.getByText('No call awaits approval.').waitFor();
    expect(problems).toEqual([]);
  });

  it('denies a held call with the reason typed beside it, which the agent is shown', async () => {
    const { page, problems } = await signedIn('#/approvals');
    const call = agent.call(ECHO, { message: 'again' });
    const deny = page.getByRole('button', { name: new RegExp(`^Deny ${ECHO} for session `) });
    await deny.waitFor();
    await page.getByLabel(new RegExp(`^Reason for ${ECHO} for session `)).fill('not in production');
    await deny.click();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^\[APPROVAL_DENIED\] .*not in production/);
    await page.getByText('No call awaits approval.').waitFor();
    expect(problems).toEqual([]);
  });
});
