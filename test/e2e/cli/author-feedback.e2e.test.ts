import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { duplicateJsonKeys } from '../../support/duplicate-json-keys';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { ProcessRun } from '../../support/processes/process-run';
import { cleanEnv, runToolport, type CliRun } from '../../support/processes/run-toolport';
import { TOOLPORT_BIN } from '../../support/processes/toolport-paths';

// Real processes on a shared 2-core machine: each CLI run costs a Node start.
jest.setTimeout(30_000);

const ARGUMENT_MARKER = 'argument-marker-7f3a';

function tool(name: string) {
  return { name, description: `The ${name} tool.`, surfaces: ['kanban-task'], input_schema: { type: 'object' } };
}

/** A plugin written with the SDK whose handler throws, and one that logs each call. */
const THROWER_SOURCE = `
import { serve } from 'toolport/plugin-sdk';
let ticks = 0;
function addToList(): never {
  throw new Error('the list "inbox" is gone');
}
void serve({
  tools: {
    boom: () => addToList(),
    tick: (_args, context) => {
      ticks += 1;
      context.log.info('tick', { ticks });
      return 'ticked ' + ticks;
    },
  },
});
`;

/** A plain grpc-js plugin (no SDK), bundled as its author would ship it: it answers gRPC statuses. */
const RAW_SOURCE = `require('./test/fixtures/plugins/status-plugin.js');`;
/** The same plugin, 3 s slow to print its handshake. */
const SLOW_SOURCE = `setTimeout(() => require('./test/fixtures/plugins/status-plugin.js'), 3000);`;
/** A plugin that serves no health service at all. */
const NO_HEALTH_SOURCE = `process.argv[2] = 'no-health'; require('./test/fixtures/plugins/unhealthy-plugin.js');`;

const noStack = (run: CliRun) => expect(run.stderr).not.toMatch(/^\s+at /m);

/**
 * What a plugin author and an operator see through the real CLI: a handler's error and its stack
 * in `plugin logs` (and live with `--follow`), a gRPC status from a plugin as [PLUGIN_ERROR]
 * with the plugin still active, a plugin without health failing its install at once, and one
 * clear line (no stack trace) with the contract's exit code for each mistake.
 */
describe('toolport CLI: feedback a plugin author can act on', () => {
  const world = new BackendWorld(['--health-interval-ms', '60000'], { prefix: 'toolport-author-' });
  let agent: McpAgent;
  const at = () => ['--data-dir', world.dataDir];

  beforeAll(async () => {
    await world.start();
    await world.install(
      writePluginPackage(join(world.root, 'thrower'), {
        manifest: { api_version: 1, id: 'author.thrower', version: '1.0.0', display_name: 'Thrower', agent_tools: [tool('boom'), tool('tick')] },
        source: THROWER_SOURCE,
      }),
    );
    await world.install(
      writePluginPackage(join(world.root, 'raw'), {
        manifest: { api_version: 1, id: 'author.raw', version: '1.0.0', display_name: 'Raw', agent_tools: [tool('echo'), tool('refuse'), tool('break')] },
        source: RAW_SOURCE,
      }),
    );
    agent = await world.agent(await world.session('kanban-task'));
  }, 60_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it("shows a handler's thrown error with its stack in plugin logs, while the agent reads the message only", async () => {
    const result = await agent.call('kandev_author_thrower_boom', { note: ARGUMENT_MARKER });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe('the list "inbox" is gone');

    const human = await runToolport(['plugin', 'logs', 'author.thrower', ...at()]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^\S+ ERROR \[plugin stderr\] tool handler threw .*plugin\.tool=boom plugin\.error="the list \\"inbox\\" is gone"/m);
    expect(human.stdout).toMatch(/^ {2}plugin\.stack:\n {4}Error: the list "inbox" is gone\n {8}at addToList /m);

    const json = await runToolport(['plugin', 'logs', 'author.thrower', '--lines', '50', '--json', ...at()]);
    expect(json.code).toBe(0);
    const records = JSON.parse(json.stdout) as Array<{ msg: string; level: string; plugin_fields?: { stack?: string } }>;
    const thrown = records.find((record) => record.msg === 'tool handler threw');
    expect(thrown).toMatchObject({ level: 'error', plugin_fields: { error: 'the list "inbox" is gone' } });
    expect(thrown?.plugin_fields?.stack).toContain('at addToList');
    expect(json.stdout).not.toContain(ARGUMENT_MARKER);
  });

  it('follows the live channel: a new record is printed as it is written, and SIGTERM ends it with exit 0', async () => {
    await agent.call('kandev_author_thrower_tick');
    const follow = world.track(
      new ProcessRun(process.execPath, [TOOLPORT_BIN, 'plugin', 'logs', 'author.thrower', '--follow', '--lines', '3', ...at()], { env: cleanEnv() }),
    );
    await follow.waitForStdout(/INFO {2}\[plugin stderr\] tick .*plugin\.ticks=1/, 15_000, 'the kept tick record');
    await agent.call('kandev_author_thrower_tick');
    await follow.waitForStdout(/INFO {2}\[plugin stderr\] tick .*plugin\.ticks=2/, 15_000, 'the new tick record');
    follow.signal('SIGTERM');
    expect(await follow.closed).toBe(0);
    expect(follow.stderr()).toBe('');
    expect(follow.stdout().match(/ticks=2/g)).toHaveLength(1);
  });

  it('answers [PLUGIN_ERROR] for a gRPC status a plugin without the SDK returns, and the plugin stays active', async () => {
    const pids = world.pluginPids('author.raw');
    expect(pids).toHaveLength(1);
    const refused = await agent.call('kandev_author_raw_refuse', { tag: ARGUMENT_MARKER });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe('[PLUGIN_ERROR] author.raw/refuse answered INVALID_ARGUMENT: the tag "x" is not known');
    const broken = await agent.call('kandev_author_raw_break');
    expect(resultText(broken)).toBe('[PLUGIN_ERROR] author.raw/break answered INTERNAL: database handle lost');

    const record = JSON.parse((await runToolport(['plugin', 'list', '--json', ...at()])).stdout).find((p: { id: string }) => p.id === 'author.raw');
    expect(record).toMatchObject({ status: 'active', restart_count: 0, last_error: null });
    expect(world.pluginPids('author.raw')).toEqual(pids);
    expect((await agent.call('kandev_author_raw_echo', { word: ARGUMENT_MARKER })).isError).toBeFalsy();
    // The failed call is logged at warn with its code, in that plugin's log.
    const logs = JSON.parse((await runToolport(['plugin', 'logs', 'author.raw', '--json', ...at()])).stdout) as Array<Record<string, unknown>>;
    expect(logs).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'warn', msg: 'tool call', code: 'PLUGIN_ERROR', local_name: 'refuse' })]));
  });

  it('fails the install of a plugin without a health service at once, naming what it must serve', async () => {
    const dir = writePluginPackage(join(world.root, 'no-health'), {
      manifest: { api_version: 1, id: 'author.nohealth', version: '1.0.0', display_name: 'No health', agent_tools: [tool('x')] },
      source: NO_HEALTH_SOURCE,
    });
    // The backend's start timeout is the default 30 s: only the definitive answer ends the install within this bound.
    const install = await runToolport(['plugin', 'install', dir, ...at()], { timeoutMs: 20_000 });
    expect(install.code).toBe(1);
    expect(install.stderr).toContain('PLUGIN_START_FAILED');
    expect(install.stderr).toContain('health check failed: UNIMPLEMENTED');
    expect(install.stderr).toContain('must serve grpc.health.v1.Health');
    noStack(install);
  });

  it('installs a plugin that needs configuration without listing tools it lacks, naming the config set it needs', async () => {
    const dir = writePluginPackage(join(world.root, 'needs'), {
      manifest: {
        api_version: 1,
        id: 'author.needs',
        version: '1.0.0',
        display_name: 'Needs configuration',
        config_schema: {
          type: 'object',
          properties: { base_url: { type: 'string' }, api_token: { type: 'string', writeOnly: true }, project: { type: 'string' } },
          required: ['base_url', 'api_token', 'project'],
        },
        agent_tools: [tool('lookup')],
      },
      source: RAW_SOURCE,
    });
    const install = await runToolport(['plugin', 'install', dir, ...at()]);
    expect(install).toMatchObject({ code: 0, stderr: '' });
    expect(install.stdout).toContain('Installed author.needs 1.0.0 (needs_config)');
    expect(install.stdout).not.toContain('Tools:');
    expect(install.stdout).not.toContain('kandev_author_needs_lookup');
    expect(install.stdout).toContain('toolport plugin config set author.needs api_token=… base_url=… project=…\n');

    expect((await runToolport(['plugin', 'uninstall', 'author.needs', ...at()])).code).toBe(0);
  });

  it('shows progress on a terminal while a slow plugin starts, and none when stderr is not a terminal', async () => {
    const dir = writePluginPackage(join(world.root, 'slow'), {
      manifest: { api_version: 1, id: 'author.slow', version: '1.0.0', display_name: 'Slow', agent_tools: [tool('echo')] },
      source: SLOW_SOURCE,
    });
    // script(1) runs the CLI on a pseudo-terminal, as a person's shell would; both streams come back on its stdout.
    const command = [process.execPath, TOOLPORT_BIN, 'plugin', 'install', dir, ...at()].join(' ');
    const onTerminal = world.track(new ProcessRun('script', ['-qfec', command, '/dev/null'], { env: cleanEnv() }));
    expect(await onTerminal.closed).toBe(0);
    expect(onTerminal.stdout()).toMatch(/installing \S+\/slow… [2-9]s/);
    expect(onTerminal.stdout()).toContain('Installed author.slow 1.0.0 (active)');

    expect((await runToolport(['plugin', 'uninstall', 'author.slow', ...at()])).code).toBe(0);
    const piped = await runToolport(['plugin', 'install', dir, ...at()]);
    expect(piped).toMatchObject({ code: 0, stderr: '' });
    expect(piped.stdout).toContain('Installed author.slow 1.0.0 (active)');
  });

  it('says what is wrong in one line, with the contract exit code, for each mistake', async () => {
    const port = new URL(world.backend.url).port;
    const busy = await runToolport(['serve', '--data-dir', join(world.root, 'second'), '--port', port]);
    expect(busy).toMatchObject({ code: 1, stdout: '' });
    expect(busy.stderr).toBe(
      `toolport: cannot listen on 127.0.0.1:${port}: the port is in use by another process (choose another with --port, or --port 0 for a free one)\n`,
    );

    const noToken = await runToolport(['agentctl', '--backend-url', world.backend.url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/^toolport: TOOLPORT_SESSION_TOKEN is not set; .*\n$/);
    const noMcpToken = await runToolport(['agentctl', '--backend-url', world.backend.url], { env: { TOOLPORT_SESSION_TOKEN: 'x' } });
    expect(noMcpToken.code).toBe(2);
    expect(noMcpToken.stderr).toMatch(/^toolport: TOOLPORT_MCP_TOKEN is not set; .*\n$/);
    const badBackendUrl = await runToolport(['agentctl', '--backend-url', 'not-a-url'], { env: { TOOLPORT_SESSION_TOKEN: 'x', TOOLPORT_MCP_TOKEN: 'y' } });
    expect(badBackendUrl.code).toBe(2);
    expect(badBackendUrl.stderr).toContain('--backend-url: "not-a-url" is not an http:// or https:// URL');

    const busyMcp = await runToolport(['agentctl', '--backend-url', world.backend.url, '--mcp-port', port], {
      env: { TOOLPORT_SESSION_TOKEN: 'x', TOOLPORT_MCP_TOKEN: 'y' },
    });
    expect(busyMcp.code).toBe(1);
    expect(busyMcp.stderr).toBe(
      `toolport: cannot listen on 127.0.0.1:${port}: the port is in use by another process (choose another with --mcp-port, or --mcp-port 0 for a free one)\n`,
    );
    // Node's recursive mkdir spins for ever under /proc: a refusal, not a hang.
    const procDataDir = await runToolport(['serve', '--data-dir', '/proc/1/toolport', '--port', '0'], { timeoutMs: 15_000 });
    expect(procDataDir).toMatchObject({ code: 1, stderr: 'toolport serve: data dir /proc/1/toolport cannot be created (ENOENT)\n' });
    const procInit = await runToolport(['plugin', 'init', '/proc/1/toolport-plugin'], { timeoutMs: 15_000 });
    expect(procInit).toMatchObject({ code: 2, stderr: 'toolport: cannot create /proc/1/toolport-plugin (ENOENT)\n' });

    const badUrl = await runToolport(['plugin', 'list', '--url', 'not-a-url', '--token', 'x']);
    expect(badUrl).toMatchObject({ code: 2, stdout: '' });
    expect(badUrl.stderr).toBe('toolport: --url: "not-a-url" is not an http:// or https:// URL (e.g. http://127.0.0.1:7800)\n');

    const badFormat = await runToolport(['serve', '--data-dir', join(world.root, 'third'), '--port', '0', '--log-format', 'yaml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toBe('toolport: --log-format: "yaml" is not one of pretty, json\n');

    const aFile = join(world.root, 'a-file');
    writeFileSync(aFile, '');
    const fileDataDir = await runToolport(['serve', '--data-dir', aFile, '--port', '0']);
    expect(fileDataDir.code).toBe(1);
    expect(fileDataDir.stderr).toBe(`toolport serve: data dir ${aFile} is not a directory\n`);

    const badLines = await runToolport(['plugin', 'logs', 'author.raw', '--lines', 'all', ...at()]);
    expect(badLines.code).toBe(2);
    expect(badLines.stderr).toContain('--lines: expected a whole number from 1 to 1000, got "all"');
    for (const run of [busy, noToken, noMcpToken, badBackendUrl, busyMcp, procDataDir, procInit, badUrl, badFormat, fileDataDir, badLines]) noStack(run);
  });

  it('prints the API error body on stdout with --json for every refusal, a 401 and a 404 included', async () => {
    const unauthorized = await runToolport(['plugin', 'list', '--json', '--url', world.backend.url, '--token', 'not-the-token']);
    expect(unauthorized.code).toBe(3);
    expect(JSON.parse(unauthorized.stdout)).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), details: null } });
    const followUnauthorized = await runToolport([
      'plugin',
      'logs',
      'author.raw',
      '--follow',
      '--json',
      '--url',
      world.backend.url,
      '--token',
      'not-the-token',
    ]);
    expect(followUnauthorized.code).toBe(3);
    expect(JSON.parse(followUnauthorized.stdout).error.code).toBe('UNAUTHORIZED');
    const unknown = await runToolport(['plugin', 'logs', 'no.such.plugin', '--json', ...at()]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('NOT_FOUND');
    const unknownFollowed = await runToolport(['plugin', 'logs', 'no.such.plugin', '--follow', '--json', ...at()]);
    expect(unknownFollowed.code).toBe(1);
    expect(JSON.parse(unknownFollowed.stdout).error.code).toBe('NOT_FOUND');
  });

  it('writes JSON records with no key twice and no tool argument, then a follower hears the backend go', async () => {
    const lines = world.backend
      .stderr()
      .split('\n')
      .filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect({ line, duplicates: duplicateJsonKeys(line) }).toEqual({ line, duplicates: [] });
    }
    expect(world.backend.stderr()).toContain('"plugin_pid":');
    expect(world.backend.stderr()).not.toContain(ARGUMENT_MARKER);

    const follow = world.track(
      new ProcessRun(process.execPath, [TOOLPORT_BIN, 'plugin', 'logs', 'author.raw', '--follow', '--json', '--lines', '1', ...at()], { env: cleanEnv() }),
    );
    await follow.waitForStdout(/^\{.*\}\n/, 15_000, 'the kept record');
    expect(await world.backend.stop('SIGTERM')).toBe(0);
    expect(await follow.closed).toBe(3);
    expect(follow.stderr()).toBe('toolport: the backend went away; no more records will come\n');
    for (const line of follow.stdout().trim().split('\n')) expect(JSON.parse(line)).toHaveProperty('plugin_id', 'author.raw');
  });
});
