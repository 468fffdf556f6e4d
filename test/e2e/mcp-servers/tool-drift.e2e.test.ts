import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ConsoleBrowser, goTo } from '../../support/browser/console-browser';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { BackendWorld } from '../../support/processes/backend-world';
import { pluginFolders, REPO_ROOT } from '../../support/processes/toolport-paths';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(90_000);

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'mcp-servers', 'drift-mcp-server.mjs');
const schema = { type: 'object' };

interface Drift {
  added: string[];
  removed: string[];
  changed: string[];
  detected_at: string;
}

/**
 * An MCP server plugin whose server changes its tools after they were pinned (docs/lifecycle.md,
 * Pinned tools and drift): the fixture lists the tools in a file of its data dir, so a test
 * changes them between starts and while it runs.
 */
describe('MCP server tool drift', () => {
  const world = new BackendWorld([], { prefix: 'toolport-mcp-drift-' });
  const browser = new ConsoleBrowser(() => world.backend.url);
  const at = () => ['--data-dir', world.dataDir];
  const toolsFile = (pluginId: string) => join(pluginFolders(world.dataDir), 'plugin-data', pluginId, 'tools.json');
  const writeTools = (pluginId: string, tools: unknown[]) => writeFileSync(toolsFile(pluginId), JSON.stringify(tools));
  /** The plugin tools an agent is served (the built-in ones left out), sorted. */
  const pluginTools = async (agent: { tools(): Promise<Array<{ name: string; description?: string }>> }) =>
    (await agent.tools()).filter((tool) => tool.name.startsWith('kandev_mcp_')).sort((a, b) => (a.name < b.name ? -1 : 1));
  const driftOf = async (pluginId: string) => (await world.api<{ tool_drift?: Drift | null }>('GET', `/api/v1/plugins/${pluginId}`)).body.tool_drift;

  function writePackage(id: string, runtime: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
    const dir = join(world.root, `${id}-package`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(FIXTURE, join(dir, 'server.mjs'));
    const manifest = {
      api_version: 1,
      id,
      version: '1.0.0',
      runtime: { type: 'mcp-stdio', command: 'node', args: ['${package}/server.mjs', '${data_dir}/tools.json'], ...runtime },
      ...extra,
    };
    writeFileSync(join(dir, 'manifest.yaml'), stringify(manifest));
    return dir;
  }

  beforeAll(async () => {
    await world.start();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('holds a drift found at a restart: agents keep the pinned tools and hear nothing until the operator accepts, then exactly one list_changed', async () => {
    const installed = await runToolport(['plugin', 'install', writePackage('mcp.drift'), '--json', ...at()]);
    expect(installed.stderr).toBe('');
    expect(JSON.parse(installed.stdout)).toMatchObject({
      status: 'active',
      tool_drift: null,
      tools: ['kandev_mcp_drift_edit', 'kandev_mcp_drift_gone', 'kandev_mcp_drift_keep'],
    });

    // While the backend is down the server gets v2: `gone` removed, `edit` changed, `fresh` added.
    expect(await world.backend.stop('SIGTERM')).toBe(0);
    writeTools('mcp.drift', [
      { name: 'keep', description: 'Stays as it is.', inputSchema: schema, annotations: { readOnlyHint: true } },
      { name: 'edit', description: 'Edits v2.', inputSchema: schema },
      { name: 'fresh', description: 'Came in v2.', inputSchema: schema },
    ]);
    await world.start();

    const drift = await eventually(() => driftOf('mcp.drift'), 10_000, 'the drift to be held');
    expect(drift).toEqual({ added: ['fresh'], removed: ['gone'], changed: ['edit'], detected_at: expect.any(String) });
    const info = await runToolport(['plugin', 'info', 'mcp.drift', ...at()]);
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(`Tool drift since ${drift.detected_at}: agents keep the pinned tools until \`toolport plugin tools accept mcp.drift\``);
    expect(info.stdout).toContain('  added: fresh\n  removed: gone\n  changed: edit\n');
    expect(info.stdout).toContain('MCP server: drift-fixture 1.0.0');
    expect(info.stdout).toContain(`imported from the server's tool "edit"`);
    const details = JSON.parse((await runToolport(['plugin', 'info', 'mcp.drift', '--json', ...at()])).stdout) as {
      tool_drift: Drift;
      agent_tools: Array<{ name: string; description: string }>;
    };
    expect(details.tool_drift).toEqual(drift);
    expect(details.agent_tools.find((tool) => tool.name === 'edit')?.description).toBe('Edits v1.');

    const session = await world.session('kanban-task', 'task-drift');
    const agent = await world.agent(session);
    const tools = await pluginTools(agent);
    expect(tools.map((tool) => tool.name)).toEqual(['kandev_mcp_drift_edit', 'kandev_mcp_drift_gone', 'kandev_mcp_drift_keep']);
    expect(tools.find((tool) => tool.name === 'kandev_mcp_drift_edit')?.description).toBe('Edits v1.');
    const removed = await agent.call('kandev_mcp_drift_gone', {});
    expect(removed.isError).toBe(true);
    expect(resultText(removed)).toContain('[PLUGIN_ERROR]');
    expect(resultText(removed)).toContain('"gone"');
    expect(resultText(await agent.call('kandev_mcp_drift_keep', {}))).toBe('called keep: Stays as it is.');

    // v3 while it runs: the server says list_changed, the drift is recomputed, the agent hears nothing.
    writeTools('mcp.drift', [
      { name: 'edit', description: 'Edits v3.', inputSchema: schema },
      { name: 'fresh', description: 'Came in v2.', inputSchema: schema },
    ]);
    const relisted = await eventually(
      async () => ((await driftOf('mcp.drift'))?.removed.includes('keep') ? driftOf('mcp.drift') : undefined),
      10_000,
      'the re-list',
    );
    expect(relisted).toEqual({ added: ['fresh'], removed: ['gone', 'keep'], changed: ['edit'], detected_at: drift.detected_at });
    expect((await pluginTools(agent)).map((tool) => tool.name)).toEqual(['kandev_mcp_drift_edit', 'kandev_mcp_drift_gone', 'kandev_mcp_drift_keep']);
    expect(agent.listChanged()).toBe(0);

    const accepted = await runToolport(['plugin', 'tools', 'accept', 'mcp.drift', ...at()]);
    expect(accepted).toMatchObject({ code: 0, stderr: '', stdout: 'mcp.drift: 2 tools pinned, no drift held\n' });
    await agent.waitForListChanged(1, 10_000);
    const now = await pluginTools(agent);
    expect(now.map((tool) => tool.name)).toEqual(['kandev_mcp_drift_edit', 'kandev_mcp_drift_fresh']);
    expect(now.find((tool) => tool.name === 'kandev_mcp_drift_edit')?.description).toBe('Edits v3.');
    expect(resultText(await agent.call('kandev_mcp_drift_fresh', {}))).toBe('called fresh: Came in v2.');
    expect(await driftOf('mcp.drift')).toBeNull();

    // With no drift, accepting again changes and signals nothing.
    const again = await runToolport(['plugin', 'tools', 'accept', 'mcp.drift', '--json', ...at()]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: 'mcp.drift', tool_drift: null, tools: ['kandev_mcp_drift_edit', 'kandev_mcp_drift_fresh'] });
    await agent.tools();
    expect(agent.listChanged()).toBe(1);
  });

  it('auto-accepts a re-list at once (one list_changed), but holds a tool that turns non-destructive for the operator', async () => {
    await world.install(writePackage('mcp.auto', { auto_accept_tools: true }));
    const agent = await world.agent(await world.session('kanban-task', 'task-auto'));
    expect((await agent.toolNames()).filter((name) => name.startsWith('kandev_mcp_auto_')).sort()).toEqual([
      'kandev_mcp_auto_edit',
      'kandev_mcp_auto_gone',
      'kandev_mcp_auto_keep',
    ]);

    writeTools('mcp.auto', [
      { name: 'keep', description: 'Stays as it is.', inputSchema: schema, annotations: { readOnlyHint: true } },
      { name: 'edit', description: 'Edits v2.', inputSchema: schema },
      { name: 'fresh', description: 'Came in v2.', inputSchema: schema },
      // Was destructive by default; now claims not to be.
      { name: 'gone', description: 'Goes away in v2.', inputSchema: schema, annotations: { destructiveHint: false } },
    ]);
    await agent.waitForListChanged(1, 10_000);
    const tools = await agent.tools();
    const mine = tools.filter((tool) => tool.name.startsWith('kandev_mcp_auto_'));
    expect(mine.map((tool) => tool.name).sort()).toEqual(['kandev_mcp_auto_edit', 'kandev_mcp_auto_fresh', 'kandev_mcp_auto_gone', 'kandev_mcp_auto_keep']);
    expect(mine.find((tool) => tool.name === 'kandev_mcp_auto_edit')?.description).toBe('Edits v2.');
    expect(mine.find((tool) => tool.name === 'kandev_mcp_auto_gone')?.annotations?.destructiveHint).toBe(true);
    expect(await driftOf('mcp.auto')).toEqual({ added: [], removed: [], changed: ['gone'], detected_at: expect.any(String) });

    const accepted = await world.api('POST', '/api/v1/plugins/mcp.auto/tools/accept');
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ id: 'mcp.auto', tool_drift: null });
    await agent.waitForListChanged(2, 10_000);
    const after = (await agent.tools()).find((tool) => tool.name === 'kandev_mcp_auto_gone');
    expect(after?.annotations?.destructiveHint).toBe(false);
  });

  it('pins the first list of a plugin installed waiting for its configuration when it first starts', async () => {
    const dir = writePackage(
      'mcp.later',
      { args: ['${package}/server.mjs', '${data_dir}/tools.json', '${config.mode}'] },
      { config_schema: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] } },
    );
    const installed = await world.api('POST', '/api/v1/plugins', { path: dir });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({ status: 'needs_config', tools: [], server: null, tool_drift: null });

    const configured = await runToolport(['plugin', 'config', 'set', 'mcp.later', 'mode=on', ...at()]);
    expect(configured.code).toBe(0);
    const record = await eventually(
      async () => {
        const body = (await world.api('GET', '/api/v1/plugins/mcp.later')).body;
        return body.tools.length > 0 ? body : undefined;
      },
      10_000,
      'the first list to be pinned',
    );
    expect(record).toMatchObject({ status: 'active', tool_drift: null, server: { name: 'drift-fixture', version: '1.0.0' } });
    expect(record.tools).toEqual(['kandev_mcp_later_edit', 'kandev_mcp_later_gone', 'kandev_mcp_later_keep']);
  });

  it("shows the drift on the console's plugin page, whose Accept button pins the server's tools", async () => {
    await world.install(writePackage('mcp.console'));
    writeTools('mcp.console', [
      { name: 'keep', description: 'Stays as it is.', inputSchema: schema, annotations: { readOnlyHint: true } },
      { name: 'fresh', description: 'Came in v2.', inputSchema: schema },
    ]);
    await eventually(() => driftOf('mcp.console'), 10_000, 'the drift to be held');

    await browser.start();
    const { page, problems } = await browser.open(`/console/#token=${encodeURIComponent(world.backend.token)}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await goTo(page, '#/plugins/mcp.console');
    const region = page.getByRole('region', { name: 'Tool drift of mcp.console' });
    await region.waitFor();
    const text = await region.innerText();
    expect(text).toContain('Agents keep the pinned tools until you accept.');
    expect(text).toMatch(/Added\s+fresh/);
    expect(text).toMatch(/Removed\s+edit, gone/);
    expect(await page.getByText('drift-fixture 1.0.0').count()).toBe(1);

    await region.getByRole('button', { name: 'Accept the tool drift of mcp.console' }).click();
    // The live channel brings the accepted record: no reload.
    await page.getByText("Tool drift: none. The server's tools match the pinned ones.").waitFor({ timeout: 3000 });
    expect(await driftOf('mcp.console')).toBeNull();
    expect((await world.api('GET', '/api/v1/plugins/mcp.console')).body.tools).toEqual(['kandev_mcp_console_fresh', 'kandev_mcp_console_keep']);
    expect(problems).toEqual([]);
  });

  it('refuses to accept for an unknown plugin with a clear error, never a stack trace', async () => {
    const unknown = await world.api('POST', '/api/v1/plugins/no.such/tools/accept');
    expect(unknown.status).toBe(404);
    const cli = await runToolport(['plugin', 'tools', 'accept', 'no.such', ...at()]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('NOT_FOUND');
    expect(cli.stderr).not.toContain('    at ');
  });

  it('answers 400 for a plugin that is not an MCP server and 409 PLUGIN_NOT_ACTIVE while a drifted one is disabled, keeping its drift', async () => {
    await world.install(join(REPO_ROOT, 'examples', 'plugins', 'echo'));
    const grpc = await world.api('POST', '/api/v1/plugins/toolport.echo/tools/accept');
    expect(grpc).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_REQUEST', message: 'plugin "toolport.echo" is not an MCP server: it has no pinned tools to accept' } },
    });

    await world.install(writePackage('mcp.off'));
    writeTools('mcp.off', [{ name: 'other', description: 'Replaces them all.', inputSchema: schema }]);
    const drift = await eventually(() => driftOf('mcp.off'), 10_000, 'the drift to be held');
    expect((await world.api('POST', '/api/v1/plugins/mcp.off/disable')).status).toBe(200);
    const refused = await world.api('POST', '/api/v1/plugins/mcp.off/tools/accept');
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'PLUGIN_NOT_ACTIVE' } } });
    expect(await driftOf('mcp.off')).toEqual(drift);
  });
});
