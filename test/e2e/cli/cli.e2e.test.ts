import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { c as createTar } from 'tar';
import { adminApi, type AdminApi } from '../../support/clients/admin-api';
import { eventually } from '../../support/eventually';
import { writePluginPackage } from '../../support/packages/plugin-package';
import type { RunningBackend } from '../../support/processes/backend-process';
import { BackendWorld } from '../../support/processes/backend-world';
import { processesMentioning } from '../../support/processes/process-table';
import { waitForNoProcesses } from '../../support/processes/process-sweep';
import { runToolport, type CliRun } from '../../support/processes/run-toolport';
import { pluginFolders, REPO_ROOT } from '../../support/processes/toolport-paths';

const ECHO_DIR = join(REPO_ROOT, 'examples', 'plugins', 'echo');
const PROBE_SOURCE = `
import { serve } from '@toolport/plugin-sdk';
void serve({ tools: { ping: () => 'pong', pong: () => 'ping' } });
`;

function probeManifest(version: string, tools: string[]) {
  return {
    api_version: 1,
    id: 'cli.probe',
    version,
    display_name: 'CLI probe',
    agent_tools: tools.map((name) => ({
      name,
      description: `The ${name} tool of the CLI probe.`,
      surfaces: ['kanban-task'],
      input_schema: { type: 'object' },
    })),
  };
}

/** What `sha256sum` says about a folder, the recipe of the examples README. */
function directorySha256(dir: string): string {
  return execFileSync('sh', ['-c', "find . ! -type d | sed 's|^\\./||' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum"], {
    cwd: dir,
    encoding: 'utf8',
  }).split(' ')[0];
}

/** A port nothing listens on: bound, read back and released. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

/** Waits until no agentctl launched for `dataDir` is left, and answers the command lines of those that are. */
async function waitForAgentctlsGone(dataDir: string, timeoutMs = 5000): Promise<string[]> {
  const left = () =>
    processesMentioning(dataDir)
      .filter((p) => p.cmdline.includes(' agentctl '))
      .map((p) => p.cmdline);
  await eventually(() => left().length === 0, timeoutMs, 'the agentctls to exit').catch(() => undefined);
  return left();
}

function json<T = unknown>(run: CliRun): T {
  return JSON.parse(run.stdout) as T;
}

/** The operator CLI (docs/cli.md), every command run as `node bin/toolport …` against one real backend. */
describe('toolport CLI against a real backend', () => {
  // The default data dir is ./.toolport: one test runs the CLI in the sandbox folder without --data-dir.
  const world = new BackendWorld(['--health-interval-ms', '60000'], { prefix: 'toolport-cli-', dataDirName: '.toolport' });
  let base: string;
  let dataDir: string;
  let backend: RunningBackend;
  let api: AdminApi;
  let probeV1: string;
  let probeV2: string;
  let probeV2Tgz: string;
  const at = () => ['--data-dir', dataDir];

  beforeAll(async () => {
    base = world.root;
    dataDir = world.dataDir;
    probeV1 = writePluginPackage(join(base, 'probe-1'), { manifest: probeManifest('1.0.0', ['ping']), source: PROBE_SOURCE });
    probeV2 = writePluginPackage(join(base, 'probe-2'), { manifest: probeManifest('2.0.0', ['ping', 'pong']), source: PROBE_SOURCE });
    probeV2Tgz = join(base, 'probe-2.tgz');
    await createTar({ gzip: true, file: probeV2Tgz, cwd: probeV2 }, ['manifest.yaml', 'main.js']);
    backend = await world.start();
    api = adminApi(backend.url, backend.token);
  }, 60_000);

  afterAll(async () => {
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 20_000);

  describe('plugin commands', () => {
    it('install prints the package SHA-256 and the tools it adds', async () => {
      const run = await runToolport(['plugin', 'install', probeV1, ...at()]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const sha = directorySha256(probeV1);
      expect(run.stdout).toContain('Installed cli.probe 1.0.0 (active)');
      expect(run.stdout).toContain(`SHA-256: ${sha}`);
      expect(run.stdout).toMatch(/Tools:\n {2}kandev_cli_probe_ping\n$/);
      const record = await api<{ package_sha256: string; status: string }>('GET', '/api/v1/plugins/cli.probe');
      expect(record.body).toMatchObject({ package_sha256: sha, status: 'active' });
    }, 30_000);

    it('install --json prints exactly the record the API answers, and checks --sha256', async () => {
      const wrong = await runToolport(['plugin', 'install', ECHO_DIR, '--sha256', '0'.repeat(64), '--json', ...at()]);
      expect(wrong.code).toBe(1);
      expect(json(wrong)).toMatchObject({ error: { code: 'CHECKSUM_MISMATCH' } });

      const run = await runToolport(['plugin', 'install', ECHO_DIR, '--sha256', directorySha256(ECHO_DIR), '--json', ...at()]);
      expect(run.code).toBe(0);
      const direct = await api('GET', '/api/v1/plugins/toolport.echo');
      expect(json(run)).toEqual(direct.body);
      expect(json(run)).toMatchObject({ id: 'toolport.echo', status: 'active', tools: ['kandev_toolport_echo_echo'], last_error: null });
    }, 30_000);

    it('installing twice is refused with exit 1; --json prints the API error body', async () => {
      const human = await runToolport(['plugin', 'install', probeV1, ...at()]);
      expect(human.code).toBe(1);
      expect(human.stdout).toBe('');
      expect(human.stderr).toContain('ALREADY_INSTALLED');

      const asJson = await runToolport(['plugin', 'install', probeV1, '--json', ...at()]);
      expect(asJson.code).toBe(1);
      const body = json<{ error: { code: string; message: string; details: unknown } }>(asJson);
      expect(body).toEqual({ error: { code: 'ALREADY_INSTALLED', message: expect.stringContaining('cli.probe'), details: null } });
      // The same refusal the API gives when asked directly.
      const direct = await api('POST', '/api/v1/plugins', { path: probeV1 });
      expect(direct).toEqual({ status: 409, body });
    }, 30_000);

    it('an invalid package is refused with every violation listed', async () => {
      const bad = join(base, 'bad-package');
      mkdirSync(bad, { recursive: true });
      writeFileSync(join(bad, 'manifest.yaml'), 'api_version: 2\nid: Bad Id\nversion: one\n');
      const human = await runToolport(['plugin', 'install', bad, ...at()]);
      expect(human.code).toBe(1);
      expect(human.stderr).toContain('INVALID_PACKAGE');
      expect(human.stderr).toMatch(/ {2}api_version: /);
      expect(human.stderr).toMatch(/ {2}id: /);
      expect(human.stderr).toMatch(/ {2}version: /);
      const asJson = await runToolport(['plugin', 'install', bad, '--json', ...at()]);
      expect(asJson.code).toBe(1);
      expect(json<{ error: { code: string; details: unknown[] } }>(asJson).error.details).toHaveLength(3);
    }, 30_000);

    it('upgrade from a .tgz replaces the version and shows the tools; the same version again is refused', async () => {
      const run = await runToolport(['plugin', 'upgrade', probeV2Tgz, ...at()]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const tgzSha = createHash('sha256').update(readFileSync(probeV2Tgz)).digest('hex');
      expect(run.stdout).toContain('Upgraded cli.probe 2.0.0 (active)');
      expect(run.stdout).toContain(`SHA-256: ${tgzSha}`);
      expect(run.stdout).toContain('  kandev_cli_probe_ping\n  kandev_cli_probe_pong\n');

      const again = await runToolport(['plugin', 'upgrade', probeV2, '--json', ...at()]);
      expect(again.code).toBe(1);
      expect(json(again)).toMatchObject({ error: { code: 'VERSION_EXISTS' } });
      const record = await api('GET', '/api/v1/plugins/cli.probe');
      expect(record.body).toMatchObject({ version: '2.0.0', package_sha256: tgzSha, tools: ['kandev_cli_probe_ping', 'kandev_cli_probe_pong'] });
    }, 30_000);

    it('upgrade --json prints the upgraded record', async () => {
      const v3 = writePluginPackage(join(base, 'probe-3'), { manifest: probeManifest('3.0.0', ['pong']), source: PROBE_SOURCE });
      const run = await runToolport(['plugin', 'upgrade', '--json', v3, ...at()]);
      expect(run.code).toBe(0);
      const direct = await api('GET', '/api/v1/plugins/cli.probe');
      expect(json(run)).toEqual(direct.body);
      expect(json(run)).toMatchObject({ version: '3.0.0', tools: ['kandev_cli_probe_pong'] });
    }, 30_000);

    it('disable and enable, in human and --json form; both are idempotent', async () => {
      const disabled = await runToolport(['plugin', 'disable', 'cli.probe', ...at()]);
      expect(disabled).toMatchObject({ code: 0, stdout: 'cli.probe is disabled\n' });
      const again = await runToolport(['plugin', 'disable', 'cli.probe', '--json', ...at()]);
      expect(again.code).toBe(0);
      expect(json(again)).toEqual((await api('GET', '/api/v1/plugins/cli.probe')).body);
      expect(json(again)).toMatchObject({ status: 'disabled' });
      const catalog = await api<{ tools: Array<{ plugin_id: string }> }>('GET', '/api/v1/catalog');
      expect(catalog.body.tools.map((t) => t.plugin_id)).not.toContain('cli.probe');

      const enabled = await runToolport(['plugin', 'enable', '--json', 'cli.probe', ...at()]);
      expect(enabled.code).toBe(0);
      expect(json(enabled)).toEqual((await api('GET', '/api/v1/plugins/cli.probe')).body);
      expect(json(enabled)).toMatchObject({ status: 'active' });
      const human = await runToolport(['plugin', 'enable', 'cli.probe', ...at()]);
      expect(human).toMatchObject({ code: 0, stdout: 'cli.probe is active\n' });

      const unknown = await runToolport(['plugin', 'enable', 'no.such.plugin', '--json', ...at()]);
      expect(unknown.code).toBe(1);
      expect(json(unknown)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }, 30_000);

    it('list shows a table, and --json is exactly GET /api/v1/plugins', async () => {
      const human = await runToolport(['plugin', 'list', ...at()]);
      expect(human.code).toBe(0);
      const lines = human.stdout.trimEnd().split('\n');
      expect(lines[0].split(/\s{2,}/)).toEqual(['ID', 'VERSION', 'STATUS', 'TOOLS', 'RESTARTS', 'LAST ERROR']);
      expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(0, 5))).toEqual([
        ['cli.probe', '3.0.0', 'active', '1', '0'],
        ['toolport.echo', '1.0.0', 'active', '1', '0'],
      ]);
      const asJson = await runToolport(['plugin', 'list', '--json', ...at()]);
      expect(asJson.code).toBe(0);
      expect(json(asJson)).toEqual((await api('GET', '/api/v1/plugins')).body);
    }, 30_000);
  });

  describe('catalog and sessions', () => {
    it('catalog prints the revision and tools; --json is exactly the snapshot', async () => {
      const direct = await api<{ generation: string; revision: number; tools: unknown[] }>('GET', '/api/v1/catalog');
      const human = await runToolport(['catalog', ...at()]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain(`generation ${direct.body.generation}, revision ${direct.body.revision}, 2 tool(s)`);
      expect(human.stdout).toMatch(/kandev_cli_probe_pong\s+cli\.probe\s+kanban-task\n/);
      expect(human.stdout).toMatch(/kandev_toolport_echo_echo\s+toolport\.echo\s+kanban-task,office-task\n/);
      const asJson = await runToolport(['catalog', '--json', ...at()]);
      expect(asJson.code).toBe(0);
      expect(json(asJson)).toEqual(direct.body);
    }, 30_000);

    it('session start --json prints the session object whose MCP URL and token work; list and stop', async () => {
      const started = await runToolport(['session', 'start', '--task', 'T-1', '--workspace', 'W-1', '--surface', 'kanban-task', '--json', ...at()]);
      expect(started.code).toBe(0);
      const session = json<{ session_id: string; mcp: { url: string; token: string } }>(started);
      expect(session).toEqual({
        session_id: expect.any(String),
        task_id: 'T-1',
        workspace_id: 'W-1',
        surface: 'kanban-task',
        profile: 'default',
        status: 'live',
        mcp: { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/), token: expect.any(String) },
      });

      const agent = await world.connect(session.mcp.url, session.mcp.token, 'cli-e2e');
      try {
        expect(await agent.toolNames()).toEqual(expect.arrayContaining(['kandev_cli_probe_pong', 'kandev_toolport_echo_echo']));
        const result = await agent.call('kandev_cli_probe_pong', {});
        expect(result).toMatchObject({ content: [{ type: 'text', text: 'ping' }] });
      } finally {
        await agent.close();
      }

      const human = await runToolport(['session', 'start', '--task', 'T-2', '--workspace', 'W-1', '--surface', 'office-task', ...at()]);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^Session \S+ \(office-task, task T-2\) is live\nMCP URL: http:\/\/127\.0\.0\.1:\d+\/mcp\nMCP token: \S+\n$/);
      const humanId = /^Session (\S+)/.exec(human.stdout)![1];

      const listed = await runToolport(['session', 'list', '--json', ...at()]);
      expect(listed.code).toBe(0);
      const direct = await api<Array<Record<string, unknown>>>('GET', '/api/v1/sessions');
      expect(json(listed)).toEqual(direct.body);
      expect(listed.stdout).not.toContain(session.mcp.token);

      const table = await runToolport(['session', 'list', ...at()]);
      expect(table.code).toBe(0);
      expect(table.stdout.split('\n')[0].split(/\s{2,}/)).toEqual(['SESSION', 'TASK', 'WORKSPACE', 'PROFILE', 'SURFACE', 'STATUS', 'LAST LINKED']);
      // Its agentctl linked once it started: the time it did is shown.
      expect(table.stdout).toMatch(new RegExp(`${session.session_id}\\s+T-1\\s+W-1\\s+default\\s+kanban-task\\s+live\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z\\n`));

      const stopped = await runToolport(['session', 'stop', session.session_id, ...at()]);
      expect(stopped).toMatchObject({ code: 0, stdout: `Stopped session ${session.session_id}\n` });
      const stoppedJson = await runToolport(['session', 'stop', humanId, '--json', ...at()]);
      expect(stoppedJson).toMatchObject({ code: 0, stdout: '' });
      const after = await api<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions');
      expect(after.body.filter((s) => [session.session_id, humanId].includes(s.session_id)).map((s) => s.status)).toEqual(['stopped', 'stopped']);
      expect(await waitForAgentctlsGone(dataDir)).toEqual([]);

      const unknown = await runToolport(['session', 'stop', 'no-such-session', '--json', ...at()]);
      expect(unknown.code).toBe(1);
      expect(json(unknown)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }, 60_000);

    it('a session on an unknown surface is refused with exit 1', async () => {
      const run = await runToolport(['session', 'start', '--task', 'T', '--workspace', 'W', '--surface', 'garden', '--json', ...at()]);
      expect(run.code).toBe(1);
      expect(json(run)).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    }, 30_000);
  });

  describe('finding the backend', () => {
    it('by --url and --token, by TOOLPORT_URL and TOOLPORT_ADMIN_TOKEN, by --data-dir and by the default ./.toolport', async () => {
      const direct = (await api('GET', '/api/v1/plugins')).body;
      const elsewhere = mkdtempSync(join(base, 'cwd-'));
      const byFlags = await runToolport(['plugin', 'list', '--json', '--url', backend.url, '--token', backend.token], { cwd: elsewhere });
      const byEnv = await runToolport(['plugin', 'list', '--json'], {
        cwd: elsewhere,
        env: { TOOLPORT_URL: backend.url, TOOLPORT_ADMIN_TOKEN: backend.token },
      });
      const byDataDir = await runToolport(['plugin', 'list', '--json', '--data-dir', dataDir], { cwd: elsewhere });
      const byDefault = await runToolport(['plugin', 'list', '--json'], { cwd: base });
      // Flags come before the environment.
      const flagsWin = await runToolport(['plugin', 'list', '--json', '--url', backend.url, '--token', backend.token], {
        cwd: elsewhere,
        env: { TOOLPORT_URL: 'http://127.0.0.1:9', TOOLPORT_ADMIN_TOKEN: 'wrong' },
      });
      for (const run of [byFlags, byEnv, byDataDir, byDefault, flagsWin]) {
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(json(run)).toEqual(direct);
      }
    }, 30_000);
  });

  describe('global options', () => {
    it('are accepted after the command group as well as after the command', async () => {
      const direct = (await api('GET', '/api/v1/plugins')).body;
      const runs = await Promise.all([
        runToolport(['plugin', '--json', 'list', '--data-dir', dataDir]),
        runToolport(['plugin', '--data-dir', dataDir, 'list', '--json']),
        runToolport(['plugin', '--url', backend.url, '--token', backend.token, 'list', '--json'], { cwd: tmpdir() }),
      ]);
      for (const run of runs) {
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(json(run)).toEqual(direct);
      }
      const sessions = await runToolport(['session', '--json', '--data-dir', dataDir, 'list']);
      expect(sessions.code).toBe(0);
      expect(json(sessions)).toEqual((await api('GET', '/api/v1/sessions')).body);
    }, 30_000);
  });

  describe('exit codes', () => {
    it('2 for bad usage: unknown option, missing argument, bad setting values', async () => {
      const fresh = join(base, 'never-started');
      const runs = await Promise.all([
        runToolport(['plugin', 'list', '--bogus', ...at()]),
        runToolport(['plugin', 'enable', ...at()]),
        runToolport(['session', 'start', '--task', 'T', '--workspace', 'W', ...at()]),
        runToolport(['serve', '--tool-timeout-ms', 'abc', '--port', '0', '--data-dir', fresh]),
        runToolport(['serve', '--tool-prefix', 'Bad-Prefix', '--port', '0', '--data-dir', fresh]),
        runToolport(['serve', '--port', 'http', '--data-dir', fresh]),
        runToolport(['frobnicate']),
      ]);
      expect(runs.map((run) => run.code)).toEqual([2, 2, 2, 2, 2, 2, 2]);
      expect(runs[0].stderr).toContain("unknown option '--bogus'");
      expect(runs[1].stderr).toContain("missing required argument 'id'");
      expect(runs[2].stderr).toContain('--surface');
      expect(runs[3].stderr).toContain('--tool-timeout-ms');
      expect(runs[4].stderr).toContain('Bad-Prefix');
      expect(runs[5].stderr).toContain('--port');
      for (const run of runs) expect(run.stdout).toBe('');
      // A refused setting starts nothing.
      expect(existsSync(join(fresh, 'backend.json'))).toBe(false);
    }, 30_000);

    it('1 for a plugin that does not start (its stderr shown) and for a second serve on a held data dir', async () => {
      const broken = join(base, 'broken');
      mkdirSync(broken, { recursive: true });
      writeFileSync(join(broken, 'main.js'), "#!/usr/bin/env node\nconsole.error('missing config: /etc/broken.conf');\nprocess.exit(4);\n", { mode: 0o755 });
      writeFileSync(
        join(broken, 'manifest.yaml'),
        'api_version: 1\nid: cli.broken\nversion: 1.0.0\nruntime:\n  type: binary\n  executables:\n    any: main.js\n',
      );
      // One install at a time: a second install of the same id racing the first may be told it is in progress.
      const human = await runToolport(['plugin', 'install', broken, ...at()]);
      const [asJson, serve] = await Promise.all([
        runToolport(['plugin', 'install', broken, '--json', ...at()]),
        runToolport(['serve', '--port', '0', ...at()]),
      ]);
      expect(human.code).toBe(1);
      expect(human.stderr).toContain('PLUGIN_START_FAILED');
      expect(human.stderr).toContain('exit code: 4');
      expect(human.stderr).toContain('| missing config: /etc/broken.conf');
      expect(asJson.code).toBe(1);
      expect(json(asJson)).toMatchObject({ error: { code: 'PLUGIN_START_FAILED', details: { exit_code: 4, stderr: ['missing config: /etc/broken.conf'] } } });
      expect((await api('GET', '/api/v1/plugins/cli.broken')).status).toBe(404);
      expect(serve.code).toBe(1);
      expect(serve.stderr).toContain(String(backend.pid));
      // The running backend still answers.
      expect((await api('GET', '/healthz')).body).toEqual({ status: 'ok' });
    }, 30_000);

    it('3 when the backend is unreachable, backend.json is stale, or the token is bad', async () => {
      const stale = join(base, 'stale');
      mkdirSync(stale, { recursive: true });
      const dead = spawn(process.execPath, ['-e', '']);
      const deadPid = dead.pid!;
      await new Promise((done) => dead.once('exit', done));
      writeFileSync(join(stale, 'backend.json'), JSON.stringify({ url: backend.url, pid: deadPid }));
      writeFileSync(join(stale, 'admin.token'), backend.token);
      const empty = join(base, 'empty');
      mkdirSync(empty, { recursive: true });

      const closedPort = await freePort();
      const runs = await Promise.all([
        runToolport(['plugin', 'list', '--url', 'http://127.0.0.1:1', '--token', 'x']),
        runToolport(['plugin', 'list', '--json', '--url', `http://127.0.0.1:${closedPort}`, '--token', backend.token]),
        runToolport(['catalog', '--json', '--data-dir', stale]),
        runToolport(['plugin', 'list', '--token', 'not-the-token', ...at()]),
        runToolport(['session', 'list', '--json'], { env: { TOOLPORT_URL: backend.url, TOOLPORT_ADMIN_TOKEN: 'not-the-token' } }),
        runToolport(['plugin', 'list', '--data-dir', empty]),
      ]);
      expect(runs.map((run) => run.code)).toEqual([3, 3, 3, 3, 3, 3]);
      expect(runs[0].stderr).toContain('http://127.0.0.1:1');
      expect(runs[1].stderr).toContain('ECONNREFUSED');
      expect(runs[2].stderr).toContain(`pid ${deadPid}`);
      expect(runs[3].stderr).toContain('401');
      expect(runs[4].stderr).toContain('401');
      expect(runs[5].stderr).toContain('backend.json');
      // A refused token is a refusal: with --json its 401 body is on stdout; nothing answered the others.
      expect(JSON.parse(runs[4].stdout)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      for (const run of [...runs.slice(0, 4), runs[5]]) expect(run.stdout).toBe('');
    }, 30_000);
  });

  describe('uninstall', () => {
    it('removes the plugin and its tools; --json prints the (empty) API answer', async () => {
      const human = await runToolport(['plugin', 'uninstall', 'cli.probe', ...at()]);
      expect(human).toMatchObject({ code: 0, stdout: 'Uninstalled cli.probe\n' });
      const asJson = await runToolport(['plugin', 'uninstall', 'toolport.echo', '--json', ...at()]);
      expect(asJson).toMatchObject({ code: 0, stdout: '' });
      expect((await api('GET', '/api/v1/plugins')).body).toEqual([]);
      const list = await runToolport(['plugin', 'list', ...at()]);
      expect(list).toMatchObject({ code: 0, stdout: 'No plugins installed.\n' });
      const catalog = await runToolport(['catalog', '--json', ...at()]);
      expect(json(catalog)).toMatchObject({ tools: [] });
      const gone = await runToolport(['plugin', 'uninstall', 'cli.probe', '--json', ...at()]);
      expect(gone.code).toBe(1);
      expect(json(gone)).toMatchObject({ error: { code: 'NOT_FOUND' } });
      expect(await waitForNoProcesses(join(pluginFolders(dataDir), 'plugins'))).toEqual([]);
    }, 30_000);
  });
});
