import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { FakeTracker } from '../../support/fake-tracker';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport, type CliRun } from '../../support/processes/run-toolport';
import { REPO_ROOT, pluginFolders } from '../../support/processes/toolport-paths';
import { filesHolding, processesHolding } from '../../support/secret-leaks';

jest.setTimeout(60_000);

const TRACKER = 'toolport.tracker';
const CREATE = 'kandev_toolport_tracker_create_issue';
const LIST = 'kandev_toolport_tracker_list_task_issues';

/**
 * Issue 16 end to end, with real processes and the official MCP client: the tracker example
 * (an API token in its config_schema, its issues in Host state) against a tracker on
 * 127.0.0.1 that only accepts the operator's token.
 */
describe('a configured plugin with a secret, end to end', () => {
  const world = new BackendWorld(['--restart-backoff-ms', '100', '--plugin-start-timeout-ms', '15000'], { prefix: 'toolport-host-e2e-' });
  const token = `tok-${randomBytes(16).toString('hex')}`;
  const tracker = new FakeTracker(token);
  const cliRuns: CliRun[] = [];
  let agent: McpAgent;

  const cli = async (args: string[], input?: string): Promise<CliRun> => {
    const run = await runToolport([...args, '--data-dir', world.dataDir], { input });
    cliRuns.push(run);
    return run;
  };
  const pid = () => eventually(() => world.pluginPids(TRACKER)[0], 15_000, 'the tracker process');
  const taskIssues = async () => ((await agent.call(LIST, {})).structuredContent as { issues: Array<{ id: string }> }).issues.map((i) => i.id);

  beforeAll(async () => {
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-examples.js')], { cwd: REPO_ROOT, stdio: 'pipe' });
    await tracker.start();
    await world.start();
    agent = await world.agent(await world.session('kanban-task', 'task-16'));
  }, 60_000);

  afterAll(async () => {
    const left = await world.teardown();
    await tracker.close();
    expect(left).toEqual([]);
  }, 30_000);

  it('installs a plugin whose config_schema requires keys as needs_config, with no process and no tools', async () => {
    const answer = await world.api('POST', '/api/v1/plugins', { path: join(REPO_ROOT, 'examples', 'plugins', 'tracker'), grants: ['network'] });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ id: TRACKER, status: 'needs_config' });
    expect(answer.body.last_error).toMatch(/api_token: is required/);
    expect(world.pluginPids(TRACKER)).toEqual([]);
    expect((await agent.toolNames()).filter((name) => name.includes('tracker'))).toEqual([]);
    const enable = await world.api('POST', `/api/v1/plugins/${TRACKER}/enable`);
    expect(enable.status).toBe(422);
    expect(enable.body.error.code).toBe('CONFIG_INVALID');
  });

  it('refuses a configuration that breaks the schema with CONFIG_INVALID, exit 1 and the body under --json', async () => {
    const run = await cli(['plugin', 'config', 'set', TRACKER, 'base_url=not a url', 'project=OPS', '--json']);
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stdout) as { error: { code: string; details: Array<{ path: string }> } };
    expect(body.error.code).toBe('CONFIG_INVALID');
    expect(body.error.details.map((d) => d.path).sort()).toEqual(['api_token', 'base_url']);
  });

  it('becomes active once the configuration is set with the secret from stdin; the plugin authenticates with it', async () => {
    const listChanged = agent.listChanged();
    const run = await cli(['plugin', 'config', 'set', TRACKER, `base_url=${tracker.baseUrl}`, 'project=OPS', 'api_token=-'], `${token}\n`);
    expect(run).toMatchObject({ code: 0, stdout: `${TRACKER} is active\n` });
    await agent.waitForListChanged(listChanged + 1);
    expect(await agent.toolNames()).toEqual(expect.arrayContaining([CREATE, LIST]));
    const filed = await agent.call(CREATE, { title: 'Retries twice' });
    expect(filed.isError).toBeFalsy();
    expect(resultText(filed)).toContain('OPS-1');
    // The tracker saw exactly the operator's token: the plugin read it in clear through GetConfig.
    expect(tracker.presented.length).toBeGreaterThan(0);
    expect(new Set(tracker.presented)).toEqual(new Set([token]));
  });

  it('shows the secret only masked, through the API and the CLI', async () => {
    expect((await world.api('GET', `/api/v1/plugins/${TRACKER}/config`)).body).toEqual({
      values: { base_url: tracker.baseUrl, project: 'OPS', api_token: '********' },
    });
    const run = await cli(['plugin', 'config', 'get', TRACKER]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('api_token=********');
    const json = await cli(['plugin', 'config', 'get', TRACKER, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ values: { base_url: tracker.baseUrl, project: 'OPS', api_token: '********' } });
  });

  it('keeps the state across a crash-restart of the plugin', async () => {
    const before = await pid();
    process.kill(before, 'SIGKILL');
    const after = await eventually(() => world.pluginPids(TRACKER).find((p) => p !== before), 15_000, 'the restarted tracker');
    expect(after).not.toBe(before);
    // Its tools left the catalog at the crash and come back with the restart.
    await eventually(async () => !(await agent.call(LIST, {})).isError, 10_000, 'the restarted tracker to answer', { retryErrors: true });
    expect(await taskIssues()).toEqual(['OPS-1']);
  });

  it('keeps the configuration and state across an upgrade', async () => {
    const next = join(world.root, 'tracker-1.1.0');
    cpSync(join(REPO_ROOT, 'examples', 'plugins', 'tracker'), next, { recursive: true });
    writeFileSync(join(next, 'manifest.yaml'), readFileSync(join(next, 'manifest.yaml'), 'utf8').replace('version: 1.0.0', 'version: 1.1.0'));
    const upgraded = await world.api('PUT', `/api/v1/plugins/${TRACKER}`, { path: next });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toMatchObject({ version: '1.1.0', status: 'active' });
    expect(await taskIssues()).toEqual(['OPS-1']);
    expect((await agent.call(CREATE, { title: 'After the upgrade' })).isError).toBeFalsy();
    expect(await taskIssues()).toEqual(['OPS-1', 'OPS-2']);
  });

  it("keeps the configuration and state across a backend restart (SQLite, the data dir's secret.key)", async () => {
    await world.closeAgents();
    expect(await world.backend.stop('SIGTERM')).toBe(0);
    await world.start();
    expect((await world.api('GET', `/api/v1/plugins/${TRACKER}`)).body.status).toBe('active');
    agent = await world.agent(await world.session('kanban-task', 'task-16'));
    expect(await taskIssues()).toEqual(['OPS-1', 'OPS-2']);
  });

  it('switches a successful change to a new process, with no catalog change and no list_changed', async () => {
    const before = await pid();
    const revision = (await world.api('GET', '/api/v1/catalog')).body.revision as number;
    const listChanged = agent.listChanged();
    const run = await cli(['plugin', 'config', 'set', TRACKER, 'project=OPS2']);
    expect(run).toMatchObject({ code: 0, stdout: `${TRACKER} is active\n` });
    // The old process may still be finishing its calls for a moment: the new one is the other pid.
    await eventually(() => world.pluginPids(TRACKER).some((p) => p !== before), 10_000, 'the new process');
    await eventually(() => !world.pluginPids(TRACKER).includes(before), 10_000, 'the old process to stop');
    const filed = await agent.call(CREATE, { title: 'In the new project' });
    expect(resultText(filed)).toMatch(/^Filed OPS2-/);
    expect((await world.api('GET', '/api/v1/catalog')).body.revision).toBe(revision);
    expect(agent.listChanged()).toBe(listChanged);
    // The secret it kept (not named in the command) still authenticates.
    expect(tracker.presented[tracker.presented.length - 1]).toBe(token);
  });

  it('keeps the old process and configuration serving when a configuration change fails to start', async () => {
    const before = await pid();
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    const run = await cli(['plugin', 'config', 'set', TRACKER, 'api_token=-', '--json'], wrong);
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stdout) as { error: { code: string; details: { stderr: string[] } } };
    expect(body.error.code).toBe('PLUGIN_START_FAILED');
    expect(body.error.details.stderr.join('\n')).toContain('refused the configured api_token');
    expect(world.pluginPids(TRACKER)).toEqual([before]);
    const presentedBefore = tracker.presented.length;
    expect((await agent.call(CREATE, { title: 'Still the old token' })).isError).toBeFalsy();
    expect(new Set(tracker.presented.slice(presentedBefore))).toEqual(new Set([token]));
    expect(JSON.stringify(world.backend.stderr())).not.toContain(wrong);
  });

  it('never shows the secret in a log line, a CLI output, a file under the data dir or a process environment or command line', async () => {
    expect(world.backends.map((b) => b.stderr().includes(token))).toEqual(world.backends.map(() => false));
    expect(cliRuns.filter((run) => run.stdout.includes(token) || run.stderr.includes(token))).toEqual([]);
    expect(filesHolding(world.dataDir, token)).toEqual([]);
    expect(processesHolding(token)).toEqual([]);
    // The scans do see what is there: the database's header, the plugin's own Host token variable.
    expect(filesHolding(world.dataDir, 'SQLite format 3')).toContain(join(world.dataDir, 'toolport.db'));
    expect(processesHolding('TOOLPORT_HOST_TOKEN=').map((p) => p.pid)).toContain(await pid());
  });

  it('removes configuration, state and data dir on uninstall; a reinstall starts from nothing', async () => {
    expect((await world.api('DELETE', `/api/v1/plugins/${TRACKER}`)).status).toBe(204);
    expect(existsSync(join(pluginFolders(world.dataDir), 'plugin-data', TRACKER))).toBe(false);
    const again = await world.api('POST', '/api/v1/plugins', { path: join(REPO_ROOT, 'examples', 'plugins', 'tracker'), grants: ['network'] });
    expect(again.body.status).toBe('needs_config');
    expect((await world.api('GET', `/api/v1/plugins/${TRACKER}/config`)).body).toEqual({ values: {} });
  });
});
