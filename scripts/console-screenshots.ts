/**
 * Takes a screenshot of each page of the console into docs/console/: a real backend on a
 * temporary data dir with the example plugins, two probes (one logging to stderr, one
 * configured with a secret, one that crashes when asked), a scope and a profile, three sessions
 * and a few calls (one failed) made by a real MCP
 * client, seen through Debian's chromium. Run with `npm run screenshots` (after `npm run build`
 * and `npm run build:examples`: it shows the built console).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ConsoleBrowser, goTo } from '../test/support/browser/console-browser';
import { configProbe, stderrProbe } from '../test/support/packages/console-probes';
import { writePluginPackage } from '../test/support/packages/plugin-package';
import { writeProbePlugin } from '../test/support/packages/probe-plugin';
import { BackendWorld } from '../test/support/processes/backend-world';
import { REPO_ROOT } from '../test/support/processes/toolport-paths';
import { eventually } from '../test/support/eventually';

const OUT = join(REPO_ROOT, 'docs', 'console');

/** Each shot: its file name, the page's address and what must be on screen before it is taken. */
const SHOTS: Array<{ name: string; hash: string; ready: (page: Page) => Locator | Locator[] }> = [
  { name: 'overview', hash: '#/overview', ready: (page) => page.getByRole('region', { name: 'Plugins by status' }).or(page.getByLabel('Plugins by status')) },
  { name: 'plugins', hash: '#/plugins', ready: (page) => page.getByRole('row', { name: 'Plugin toolport.tracker' }) },
  {
    name: 'plugin',
    hash: '#/plugins/config.probe',
    ready: (page) => [page.getByRole('form', { name: 'Configuration of config.probe' }), page.getByRole('checkbox', { name: 'Disable whoami in ws-mobile' })],
  },
  { name: 'profiles', hash: '#/profiles', ready: (page) => page.getByRole('row', { name: 'Profile reviewer' }) },
  { name: 'catalog', hash: '#/catalog', ready: (page) => page.getByRole('heading', { name: 'Catalog', exact: true }) },
  { name: 'sessions', hash: '#/sessions', ready: (page) => page.getByRole('button', { name: /^Stop session/ }).first() },
  { name: 'calls', hash: '#/calls', ready: (page) => page.getByRole('row', { name: /^Call of kandev_toolport_notes_add_note/ }).first() },
  { name: 'approvals', hash: '#/approvals', ready: (page) => page.getByRole('button', { name: /^Approve kandev_toolport_notes_add_note for session / }) },
  { name: 'log', hash: '#/plugins/crash.probe/log', ready: (page) => page.getByRole('cell', { name: 'plugin started', exact: true }).first() },
];

async function populate(world: BackendWorld): Promise<void> {
  // The tracker reaches its tracker over the network (examples/plugins/tracker/manifest.yaml).
  for (const example of ['echo', 'notes', 'tracker'])
    await world.install(join(REPO_ROOT, 'examples', 'plugins', example), example === 'tracker' ? ['network'] : undefined);
  await world.install(writePluginPackage(join(world.root, 'log-probe'), stderrProbe('log.probe', 'log probe: warmed up, listening for pings')));
  await world.install(writePluginPackage(join(world.root, 'config-probe'), configProbe('config.probe', 'not-a-real-key')));
  await world.install(writeProbePlugin(join(world.root, 'crash-probe'), 'crash.probe', ['peek', 'crash']));
  await world.api('PUT', '/api/v1/plugins/config.probe/config', { values: { region: 'eu-north', api_key: 'not-a-real-key' } });

  // A scope (two workspaces, one turning the probe's tool off) and a profile that reads but does not write.
  await world.api('PUT', '/api/v1/plugins/config.probe/scope', { workspaces: ['ws-e2e', 'ws-mobile'], disabled_tools: { 'ws-mobile': ['whoami'] } });
  await world.api('PUT', '/api/v1/profiles/reviewer', { include: ['*'], exclude: ['*_add_note', '*_create_issue'] });

  const kanban = await world.session('kanban-task', 'T-1042');
  await world.session('office-task', 'T-1043');
  await world.api('POST', '/api/v1/sessions', { task_id: 'T-1044', workspace_id: 'ws-mobile', surface: 'kanban-task', profile: 'reviewer' });
  const agent = await world.agent(kanban, 'screenshots');
  await agent.call('kandev_toolport_echo_echo', { message: 'hello from the agent' });
  await agent.call('kandev_toolport_notes_add_note', { text: 'Check the release notes', tags: ['release'] });
  await agent.call('kandev_toolport_notes_add_note', { text: 'Ask about the deadline' });
  await agent.call('kandev_toolport_notes_list_notes', {});
  await agent.call('kandev_config_probe_whoami', {});
  await agent.call('kandev_crash_probe_peek', {});
  // The plugin exits in the middle of this call: a failed call with its code, and a restart.
  await agent.call('kandev_crash_probe_crash', {}).catch(() => undefined);
  // One call held for an operator (docs/approvals.md): the Approvals page shows it waiting. The
  // teardown's session stop withdraws it.
  await world.api('PUT', '/api/v1/approval-rules', [{ workspace: '*', profile: '*', tools: 'kandev_toolport_notes_add_note', mode: 'operator' }]);
  void agent.call('kandev_toolport_notes_add_note', { text: 'Drop the staging table' }).catch(() => undefined);
  await eventually(async () => ((await world.api('GET', '/api/v1/approvals')).body as unknown[]).length === 1, 15_000, 'the call to be held');
  await eventually(
    async () => {
      const { body } = await world.api('GET', '/api/v1/plugins/crash.probe');
      return body.restart_count > 0 && body.status === 'active';
    },
    15_000,
    'crash.probe to be restarted',
  );
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const world = new BackendWorld([], { prefix: 'toolport-screenshots-' });
  const browser = new ConsoleBrowser(() => world.backend.url);
  try {
    await world.start();
    await populate(world);
    await browser.start();

    const { page: signIn } = await browser.open('/console/');
    await signIn.getByLabel('Admin token').waitFor();
    await signIn.screenshot({ path: join(OUT, 'sign-in.png') });

    const { page, problems } = await browser.open(`/console/#token=${encodeURIComponent(world.backend.token)}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    for (const shot of SHOTS) {
      await goTo(page, shot.hash);
      for (const ready of [shot.ready(page)].flat()) await ready.waitFor();
      // Past the channel's 50 ms batching, so the page shows everything it was sent.
      await page.waitForFunction(() => true, undefined, { polling: 'raf' });
      await page.screenshot({ path: join(OUT, `${shot.name}.png`), fullPage: true });
      console.log(`docs/console/${shot.name}.png`);
    }
    if (problems.length > 0) throw new Error(`the console reported problems:\n${problems.join('\n')}`);
  } finally {
    await browser.close();
    const left = await world.gracefulTeardown();
    if (left.outlived.length > 0 || left.swept.length > 0) console.error('processes outlived the backend:', left);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
