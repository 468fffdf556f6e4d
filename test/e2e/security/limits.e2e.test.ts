import Database from 'better-sqlite3';
import { setMaxListeners } from 'node:events';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { watchHealth } from '../../support/clients/health-watch';
import { resultText } from '../../support/clients/mcp-agent';
import { frameMatching } from '../../support/clients/frame-matching';
import { linkUrl, openLink, type RawLink } from '../../support/clients/raw-link';
import { eventually } from '../../support/eventually';
import { paddedTgz } from '../../support/packages/padded-tgz';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { exposed, invocationCount, writeSlowPlugin } from '../../support/packages/slow-plugin';
import { writeStringToolPlugin } from '../../support/packages/string-tool-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { linkedAgent } from '../../support/processes/linked-agent';
import { memoryMb, resetPeakMemory } from '../../support/processes/process-memory';
import { runToolport } from '../../support/processes/run-toolport';
import { pluginFolders } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const MiB = 1024 * 1024;

/** Revision 2's limits (docs/plugin-protocol.md §2, docs/invocation.md), each met through the real CLI, MCP client, link and processes. */
describe('limits an attacker looks for', () => {
  const world = new BackendWorld([], { prefix: 'toolport-security-limits-' });
  const links: RawLink[] = [];

  beforeAll(async () => {
    await world.start();
  }, 30_000);

  afterAll(async () => {
    for (const link of links) link.socket.terminate();
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  /** A raw link authenticated and said hello for a session started with `launch: false`. */
  async function helloLink(task: string, hello: Record<string, unknown> = {}): Promise<RawLink> {
    const started = await world.session('kanban-task', task, false);
    const link = await openLink(linkUrl(world.backend.url), started.agentctl!.session_token);
    links.push(link);
    expect(await link.request('hello', 'agentctl.hello', hello)).toMatchObject({ type: 'response', payload: { session: { task_id: task } } });
    return link;
  }

  const cli = (args: string[], timeoutMs?: number) => runToolport([...args, '--data-dir', world.dataDir], { timeoutMs });

  it("gives one session at most its share of a plugin's slots ([PLUGIN_BUSY] naming it) while another session's call goes through", async () => {
    const SLOW = 'limits.slow';
    await world.install(writeSlowPlugin(join(world.root, 'pkg-slow'), SLOW));
    const hog = await linkedAgent(world, await world.session('kanban-task', 'task-hog'));
    const other = await linkedAgent(world, await world.session('kanban-task', 'task-other'));
    const release = new AbortController();
    // One signal ends all 32 calls, each listening on it.
    setMaxListeners(64, release.signal);
    const settled: Array<{ text: string; isError: boolean }> = [];
    // The agent: 32 slow calls at once, as many as the plugin's whole cap.
    const calls = Array.from({ length: 32 }, (_, n) =>
      hog.call(exposed(SLOW, 'work'), { ms: 60_000, n }, { signal: release.signal, timeout: 90_000 }).then(
        (result) => settled.push({ text: resultText(result), isError: result.isError === true }),
        (error: Error) => settled.push({ text: `client: ${error.message}`, isError: true }),
      ),
    );
    await eventually(
      () => settled.length >= 24 && invocationCount(world.dataDir, SLOW) >= 8,
      15_000,
      'the share to reach the plugin and the rest to be refused',
    );
    expect(invocationCount(world.dataDir, SLOW)).toBe(8);
    expect(settled).toHaveLength(24);
    for (const refusal of settled) {
      expect(refusal.isError).toBe(true);
      expect(refusal.text).toBe(`[PLUGIN_BUSY] this session already has 8 calls in flight to plugin "${SLOW}" (its share is 8 of 32)`);
    }

    // The hog's eight are still running; another agent's call to the same plugin is served.
    const served = await other.call(exposed(SLOW, 'work'), { ms: 0 });
    expect(served.isError).toBeFalsy();
    expect(resultText(served)).toMatch(/^done /);
    expect(settled).toHaveLength(24);
    expect(invocationCount(world.dataDir, SLOW)).toBe(9);

    release.abort();
    await Promise.all(calls);
    expect(settled).toHaveLength(32);
  });

  it('installs a valid .tgz followed by 64 MB of zeros and refuses one of zeros only, both promptly, /healthz answering throughout', async () => {
    const valid = join(world.root, 'padded.tgz');
    writeFileSync(valid, paddedTgz(writeProbePlugin(join(world.root, 'pkg-padded'), 'limits.padded', ['peek']), 64 * MiB));
    const zeros = join(world.root, 'zeros.tgz');
    writeFileSync(zeros, paddedTgz(undefined, 64 * MiB));
    // The bomb: about 65 KB on disk.
    expect(statSync(zeros).size).toBeLessThan(100 * 1024);

    for (const [file, expectInstalled] of [
      [valid, true],
      [zeros, false],
    ] as const) {
      const health = watchHealth(world.backend.url);
      const started = Date.now();
      // Killed after 20 s: the unbounded reading took minutes.
      const run = await cli(['plugin', 'install', file], 20_000);
      const tookMs = Date.now() - started;
      const polls = await health.stop();
      if (expectInstalled) {
        expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
        expect(run.stdout).toMatch(/^Installed limits\.padded 1\.0\.0 \(active\)\n/);
      } else {
        expect(run.code).toBe(1);
        // Two zero blocks are an end-of-archive: nothing before them, so no archive at all.
        expect(run.stderr).toContain('INVALID_PACKAGE: invalid package: (package): archive refused: Unrecognized archive format');
        expect(run.stderr).not.toMatch(/\n\s+at /);
      }
      // Before the cap, 64 MB of zeros cost 71 s of CPU with /healthz stalled; now it is read no further than the archive's end.
      expect({ file, tookMs: tookMs < 10_000 }).toEqual({ file, tookMs: true });
      expect(polls.statuses.every((status) => status === 200)).toBe(true);
      expect({ file, slowestHealthMs: polls.slowestMs < 2000 }).toEqual({ file, slowestHealthMs: true });
    }
    const ids = (await world.api<Array<{ id: string }>>('GET', '/api/v1/plugins')).body.map((p) => p.id);
    expect(ids).toContain('limits.padded');
  });

  it('answers a catastrophic-backtracking pattern with [INVALID_ARGUMENTS] at once, stays healthy, and refuses a lookahead at install naming it', async () => {
    const PATTERN = 'limits.pattern';
    await world.install(writeStringToolPlugin(join(world.root, 'pkg-pattern'), PATTERN, 'match', { type: 'string', pattern: '^(a+)+$' }));
    const agent = await linkedAgent(world, await world.session('kanban-task', 'task-pattern'));
    const evil = 'a'.repeat(50_000) + '!';
    const health = watchHealth(world.backend.url);
    // A backtracking engine never answers this one: the agentctl's event loop would be stuck in it.
    const refused = await agent.call(exposed(PATTERN, 'match'), { s: evil }, { timeout: 10_000 });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe(`[INVALID_ARGUMENTS] ${exposed(PATTERN, 'match')}: /s must match pattern "^(a+)+$"`);
    // The backend checks too (a peer other than agentctl sends what it likes): same answer, still healthy.
    const link = await helloLink('task-pattern-raw');
    const direct = await link.request('evil', 'mcp.invoke_plugin_tool', { plugin_id: PATTERN, local_name: 'match', arguments: { s: evil } });
    expect(direct).toMatchObject({ type: 'error', payload: { code: 'BAD_REQUEST', invocation_code: 'INVALID_ARGUMENTS' } });
    expect(direct.payload?.message).toContain('must match pattern');
    const polls = await health.stop();
    expect(polls.statuses.every((status) => status === 200)).toBe(true);
    expect(polls.slowestMs).toBeLessThan(2000);
    // The control: the pattern is applied, not the input refused for its size.
    expect(resultText(await agent.call(exposed(PATTERN, 'match'), { s: 'a'.repeat(50_000) }))).toBe(`${PATTERN} got 50000`);

    const lookahead = writeStringToolPlugin(join(world.root, 'pkg-lookahead'), 'limits.lookahead', 'match', { type: 'string', pattern: '^(?=a)a+$' });
    const run = await cli(['plugin', 'install', lookahead]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('INVALID_PACKAGE');
    expect(run.stderr).toContain('agent_tools[0].input_schema: does not compile: pattern "^(?=a)a+$" cannot be used');
    expect(run.stderr).toContain('no backreferences or lookaround');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect((await world.api('GET', '/api/v1/plugins/limits.lookahead')).status).toBe(404);
  });

  it('refuses a 7 MB argument with [INVALID_ARGUMENTS] naming the 4 MiB limit, and it never reaches the plugin', async () => {
    const PROBE = 'limits.probe';
    await world.install(writeProbePlugin(join(world.root, 'pkg-probe'), PROBE, ['peek']));
    const agent = await linkedAgent(world, await world.session('kanban-task', 'task-big'));
    const blob = 'x'.repeat(7 * MiB);
    const refused = await agent.call(exposed(PROBE, 'peek'), { blob });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe(
      `[INVALID_ARGUMENTS] ${exposed(PROBE, 'peek')}: the arguments are ${JSON.stringify({ blob }).length} bytes of JSON, over the 4194304-byte limit`,
    );

    // Straight to the backend: a 7 MB frame is refused unparsed; arguments just over 4 MiB by the argument check.
    const link = await helloLink('task-big-raw');
    const frame = await link.request('big', 'mcp.invoke_plugin_tool', { plugin_id: PROBE, local_name: 'peek', arguments: { blob } });
    expect(frame).toMatchObject({ id: 'big', type: 'error', payload: { invocation_code: 'INVALID_ARGUMENTS' } });
    expect(frame.payload?.message).toMatch(/^\[INVALID_ARGUMENTS\] a request of \d+ bytes is over the \d+-byte limit of a call$/);
    const justOver = { blob: 'x'.repeat(4 * MiB) };
    const over = await link.request('over', 'mcp.invoke_plugin_tool', { plugin_id: PROBE, local_name: 'peek', arguments: justOver });
    expect(over).toMatchObject({ id: 'over', type: 'error', payload: { code: 'BAD_REQUEST', invocation_code: 'INVALID_ARGUMENTS' } });
    expect(over.payload?.message).toContain(`the arguments are ${JSON.stringify(justOver).length} bytes of JSON, over the 4194304-byte limit`);

    // Sixteen at once, one per link: the backend holds the frames' bytes for a moment and parses none
    // (before the cap it parsed each, and grew by about 400 MB here).
    const many = await Promise.all(Array.from({ length: 16 }, (_, n) => helloLink(`task-big-${n}`)));
    resetPeakMemory(world.backend.pid);
    const rssBefore = memoryMb(world.backend.pid, 'VmRSS');
    const answers = await Promise.all(
      many.map((one, n) => one.request(`big-${n}`, 'mcp.invoke_plugin_tool', { plugin_id: PROBE, local_name: 'peek', arguments: { blob } })),
    );
    expect(new Set(answers.map((answer) => answer.payload?.invocation_code))).toEqual(new Set(['INVALID_ARGUMENTS']));
    expect(memoryMb(world.backend.pid, 'VmHWM') - rssBefore).toBeLessThan(250);

    expect(recordedCalls(world.dataDir, PROBE)).toEqual([]);
    // The control: a call within the limit reaches the plugin, over MCP and over the same link.
    expect((await agent.call(exposed(PROBE, 'peek'), { blob: 'small' })).isError).toBeFalsy();
    expect(await link.request('small', 'mcp.invoke_plugin_tool', { plugin_id: PROBE, local_name: 'peek', arguments: { blob: 'tiny' } })).toMatchObject({
      type: 'response',
    });
    expect(recordedCalls(world.dataDir, PROBE).map((call) => call.args.blob)).toEqual(['small', 'tiny']);
  });

  it('lets exactly one of two concurrent installs with colliding exposed names succeed; the other is refused naming the tool', async () => {
    const RUN = 'kandev_a_b_run';
    const write = (id: string) =>
      writePluginPackage(join(world.root, `pkg-${id}`), {
        manifest: {
          api_version: 1,
          id,
          version: '1.0.0',
          agent_tools: [{ name: 'run', description: `Runs ${id}.`, surfaces: ['kanban-task'], input_schema: { type: 'object' } }],
        },
        source: `import { serve } from '@toolport/plugin-sdk';\nvoid serve({ tools: { run: () => 'ran ${id}' } });\n`,
      });
    const packages = { 'a.b': write('a.b'), 'a-b': write('a-b') };
    const runs = await Promise.all(Object.values(packages).map((dir) => cli(['plugin', 'install', dir])));
    const winners = runs.filter((run) => run.code === 0);
    const losers = runs.filter((run) => run.code !== 0);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0].code).toBe(1);
    expect(losers[0].stderr).toContain('NAME_COLLISION');
    expect(losers[0].stderr).toContain(RUN);
    const winner = /^Installed (a[.-]b) /.exec(winners[0].stdout)![1];
    const ids = (await world.api<Array<{ id: string; status: string }>>('GET', '/api/v1/plugins')).body.filter((p) => p.id in packages);
    expect(ids).toEqual([{ ...ids[0], id: winner, status: 'active' }]);

    const agent = await linkedAgent(world, await world.session('kanban-task', 'task-after-race'));
    expect((await agent.toolNames()).filter((name) => name === RUN)).toEqual([RUN]);
    expect(resultText(await agent.call(RUN))).toBe(`ran ${winner}`);
  });

  it('sends catalog changes over the link and never dials the control_url a hello names', async () => {
    const dialled: string[] = [];
    const listener: Server = createServer((socket) => {
      dialled.push(String(socket.remotePort));
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const port = (listener.address() as AddressInfo).port;
      const link = await helloLink('task-control-url', { control_url: `http://127.0.0.1:${port}` });
      await world.install(writeProbePlugin(join(world.root, 'pkg-pushed'), 'limits.pushed', ['add_tag']));
      const push = await frameMatching(
        link,
        (frame) => frame.type === 'request' && frame.action === 'catalog.push' && JSON.stringify(frame.payload).includes(exposed('limits.pushed', 'add_tag')),
        10_000,
        'a catalog.push naming the new tool',
      );
      const pushed = push.payload as { generation: string; revision: number };
      link.socket.send(
        JSON.stringify({ id: push.id, type: 'response', payload: { outcome: 'applied', generation: pushed.generation, revision: pushed.revision } }),
      );
      // One more round trip on the link, so anything the backend meant to do about this change is done.
      expect(await link.request('after', 'mcp.list_plugin_tools', null)).toMatchObject({ type: 'response', payload: { generation: pushed.generation } });
      expect(dialled).toEqual([]);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});

describe('a crash in the middle of an uninstall', () => {
  const world = new BackendWorld([], { prefix: 'toolport-security-uninstall-crash-' });

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('leaves no plugin folders once the next backend starts, and the log names what it removed', async () => {
    const DOOMED = 'limits.doomed';
    const first = await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg'), DOOMED, ['add_tag']));
    const agent = await linkedAgent(world, await world.session('kanban-task'));
    expect((await agent.call(exposed(DOOMED, 'add_tag'), { tag: 'kept-in-its-folder' })).isError).toBeFalsy();
    const folders = [join(pluginFolders(world.dataDir), 'plugins', DOOMED), join(pluginFolders(world.dataDir), 'plugin-data', DOOMED)];
    for (const folder of folders) expect({ folder, exists: existsSync(folder) }).toEqual({ folder, exists: true });

    // The crash point: the uninstall's transaction committed, nothing after it ran.
    await world.closeAgents();
    await first.stop('SIGKILL');
    const db = new Database(join(world.dataDir, 'toolport.db'));
    db.transaction(() => {
      db.prepare('DELETE FROM plugins WHERE id = ?').run(DOOMED);
      for (const table of ['plugin_configs', 'plugin_state', 'plugin_secrets']) db.prepare(`DELETE FROM ${table} WHERE plugin_id = ?`).run(DOOMED);
    })();
    db.close();
    for (const folder of folders) expect({ folder, exists: existsSync(folder) }).toEqual({ folder, exists: true });

    const second = await world.start();
    for (const folder of folders) expect({ folder, exists: existsSync(folder) }).toEqual({ folder, exists: false });
    const swept = second
      .stderr()
      .split('\n')
      .filter((line) => line.includes('removed plugin folders no record names'))
      .map((line) => JSON.parse(line) as { level: number; removed: string[] });
    expect(swept).toEqual([expect.objectContaining({ level: 40, removed: [DOOMED] })]);
    expect((await world.api('GET', '/api/v1/plugins')).body).toEqual([]);
    expect((await world.api<{ tools: unknown[] }>('GET', '/api/v1/catalog')).body.tools).toEqual([]);
  });
});
