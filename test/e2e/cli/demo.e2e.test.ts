import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { adminApi } from '../../support/clients/admin-api';
import { ProcessRun } from '../../support/processes/process-run';
import { ProcessSandbox } from '../../support/processes/process-sandbox';
import { processesMentioning } from '../../support/processes/process-table';
import { waitForNoProcesses } from '../../support/processes/process-sweep';
import { cleanEnv, runToolport } from '../../support/processes/run-toolport';
import { REPO_ROOT, TOOLPORT_BIN } from '../../support/processes/toolport-paths';

const DEMO_TOOLS = [
  'get_task_context',
  'kandev_toolport_echo_echo',
  'kandev_toolport_notes_add_note',
  'kandev_toolport_notes_list_notes',
  'kandev_toolport_notes_search_notes',
];

interface DemoRun {
  run: ProcessRun;
  /** stdout up to and including the `MCP token:` line. */
  ready: string;
  mcpUrl: string;
  mcpToken: string;
  sessionId: string;
  backendUrl: string;
}

/** Spawns the demo in its own process group, as a terminal would run it. */
function spawnDemo(sandbox: ProcessSandbox, command: string, args: string[]): ProcessRun {
  return sandbox.track(new ProcessRun(command, args, { cwd: REPO_ROOT, detached: true, env: cleanEnv({ TOOLPORT_LOG_LEVEL: 'warn' }) }));
}

/** Starts the demo and waits for its last line. */
async function startDemo(sandbox: ProcessSandbox, command: string, args: string[]): Promise<DemoRun> {
  const run = spawnDemo(sandbox, command, args);
  await run.waitForStdout(/^MCP token: .*\n/m, 60_000, "the demo's MCP token line");
  const ready = run.stdout();
  const field = (pattern: RegExp) => {
    const match = pattern.exec(ready);
    if (!match) throw new Error(`no ${pattern} in the demo output:\n${ready}`);
    return match[1];
  };
  return {
    run,
    ready,
    mcpUrl: field(/^MCP URL: (\S+)$/m),
    mcpToken: field(/^MCP token: (\S+)$/m),
    sessionId: field(/^Session (\S+) for task demo-task/m),
    backendUrl: field(/^Backend: (\S+) /m),
  };
}

/** `npm start` (toolport demo): a working MCP endpoint to paste, a clean Ctrl-C, a second run that reuses what is installed. */
describe('npm start (toolport demo)', () => {
  const sandbox = new ProcessSandbox('toolport-demo-');
  let dataDir: string;
  let firstSessionId: string | undefined;

  beforeAll(() => {
    dataDir = sandbox.root;
  });

  afterAll(async () => {
    // A demo a failed test left running ends with its whole group; whatever outlives that is a leak.
    await sandbox.stopStarted();
    const left = await waitForNoProcesses(dataDir, 10_000);
    await sandbox.teardown();
    expect(left).toEqual([]);
  }, 20_000);

  it('prints the MCP URL and token last; an agent lists the example tools and calls echo; Ctrl-C leaves nothing running', async () => {
    const demo = await startDemo(sandbox, 'npm', ['start', '--', '--data-dir', dataDir]);
    firstSessionId = demo.sessionId;
    const lines = demo.ready.trimEnd().split('\n');
    // One human line per lifecycle change, never a log record, before the paste-ready block.
    // (npm's own banner, `> toolport@… start`, comes first.)
    const first = lines.findIndex((line) => line.startsWith('Starting a backend'));
    const told = lines.slice(first, lines.indexOf('', first));
    expect(told).toEqual([
      `Starting a backend on ${dataDir}…`,
      'plugin toolport.echo 1.0.0 installed, active',
      'plugin toolport.notes 1.0.0 installed, active',
      `session ${demo.sessionId} (task demo-task, kanban-task) starting`,
      `session ${demo.sessionId} (task demo-task, kanban-task) live: its agentctl is linked`,
      expect.stringMatching(/^session \S+ \(task demo-task, kanban-task, agentctl run elsewhere\) starting$/),
    ]);
    expect(lines.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    expect(lines.slice(-2)).toEqual([`MCP URL: ${demo.mcpUrl}`, `MCP token: ${demo.mcpToken}`]);
    expect(demo.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const agent = await sandbox.connect(demo.mcpUrl, demo.mcpToken, 'demo-e2e');
    try {
      const tools = (await agent.toolNames()).sort();
      expect(tools).toEqual(DEMO_TOOLS);
      const result = await agent.call('kandev_toolport_echo_echo', { message: 'hello from the demo' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        message: 'hello from the demo',
        context: { task_id: 'demo-task', session_id: demo.sessionId, workspace_id: 'demo-workspace', surface: 'kanban-task' },
        invocation_id: expect.any(String),
      });
      const note = await agent.call('kandev_toolport_notes_add_note', { text: 'kept across demo runs' });
      expect(note.structuredContent).toMatchObject({ total: 1 });
    } finally {
      await agent.close();
    }

    // A second demo on the same data dir while this one runs is refused, naming the holder.
    const holder = processesMentioning(dataDir).find((p) => /^\S*node bin\/toolport demo /.test(p.cmdline));
    expect(holder).toBeDefined();
    const second = await runToolport(['demo', '--data-dir', dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(String(holder!.pid));

    const running = processesMentioning(dataDir).map((p) => p.cmdline);
    // One process per plugin: a sandboxed one also shows its bubblewrap parent, left out here.
    expect(running.filter((c) => c.includes('/plugins/toolport.') && !c.startsWith('/usr/bin/bwrap '))).toHaveLength(2);
    expect(running.filter((c) => c.includes(' agentctl '))).toHaveLength(1);

    // Ctrl-C in a terminal signals the whole foreground group: npm, its shell and the demo.
    const stoppedAt = Date.now();
    demo.run.signal('SIGINT');
    await demo.run.exited;
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(await waitForNoProcesses(dataDir)).toEqual([]);
    expect(processesMentioning('bin/toolport demo').filter((p) => p.cmdline.includes(dataDir))).toEqual([]);
    expect(existsSync(join(dataDir, 'backend.json'))).toBe(false);
  }, 90_000);

  it('a second run reuses the installed plugins and their data; the printed stdio command works', async () => {
    const demo = await startDemo(sandbox, process.execPath, [TOOLPORT_BIN, 'demo', '--data-dir', dataDir]);
    expect(demo.ready).toContain('plugin toolport.echo 1.0.0 active (installed by an earlier run)');
    expect(demo.ready).toContain('plugin toolport.notes 1.0.0 active (installed by an earlier run)');
    expect(demo.ready).not.toContain('installed,');
    expect(demo.ready.trimEnd().split('\n').slice(-2)).toEqual([`MCP URL: ${demo.mcpUrl}`, `MCP token: ${demo.mcpToken}`]);

    // The first run's session was marked stopped when it shut down.
    const api = adminApi(demo.backendUrl, readFileSync(join(dataDir, 'admin.token'), 'utf8').trim());
    const sessions = await api<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions');
    expect(sessions.body.find((s) => s.session_id === firstSessionId)?.status).toBe('stopped');
    expect(sessions.body.filter((s) => s.session_id !== demo.sessionId && s.status === 'live')).toEqual([]);
    // Nothing from the first run is left `starting` either (its stdio session was ended too).
    const fromFirstRun = sessions.body.filter((s) => !demo.ready.includes(s.session_id) && s.session_id !== demo.sessionId);
    expect(fromFirstRun.length).toBeGreaterThanOrEqual(2);
    expect(fromFirstRun.map((s) => s.status).sort()).toEqual(fromFirstRun.map(() => 'stopped'));
    expect(sessions.body.find((s) => s.session_id === demo.sessionId)?.status).toBe('live');

    const agent = await sandbox.connect(demo.mcpUrl, demo.mcpToken, 'demo-e2e');
    try {
      // Notes are per task, and the demo's task is the same: the first run's note is still there.
      const listed = await agent.call('kandev_toolport_notes_list_notes', {});
      expect(listed.structuredContent).toMatchObject({ total: 1, notes: [{ text: 'kept across demo runs' }] });
    } finally {
      await agent.close();
    }

    const stdioLine = /^ {2}TOOLPORT_SESSION_TOKEN=(\S+) (\S+) (agentctl .*)$/m.exec(demo.ready);
    expect(stdioLine).not.toBeNull();
    const [, sessionToken, executable, rest] = stdioLine!;
    const stdioSession = /its own session (\S+);/.exec(demo.ready)![1];
    const transport = new StdioClientTransport({
      command: executable,
      args: rest.split(' '),
      env: cleanEnv({ TOOLPORT_SESSION_TOKEN: sessionToken }) as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', () => undefined); // drained, so the agentctl never blocks on its logs
    const stdioClient = new Client({ name: 'demo-stdio', version: '1.0.0' });
    await stdioClient.connect(transport);
    try {
      expect((await stdioClient.listTools()).tools.map((t) => t.name).sort()).toEqual(DEMO_TOOLS);
      const result = await stdioClient.callTool({ name: 'kandev_toolport_echo_echo', arguments: { message: 'over stdio' } });
      expect(result.structuredContent).toMatchObject({ message: 'over stdio', context: { session_id: stdioSession, task_id: 'demo-task' } });
    } finally {
      await stdioClient.close();
    }

    demo.run.signal('SIGINT');
    expect(await demo.run.exited).toBe(0);
    expect(await waitForNoProcesses(dataDir)).toEqual([]);
  }, 90_000);

  it('Ctrl-C while the demo is still starting stops everything it started and exits 0', async () => {
    const demo = spawnDemo(sandbox, process.execPath, [TOOLPORT_BIN, 'demo', '--data-dir', dataDir]);
    // The plugins are up and the session's agentctl is being launched.
    await demo.waitForStdout(/^plugin toolport\.notes .*earlier run/m, 60_000, 'the demo reusing its notes plugin');
    demo.signal('SIGINT');
    const code = await demo.exited;
    expect({ code, stderr: code === 0 ? '' : demo.stderr() }).toEqual({ code: 0, stderr: '' });
    expect(await waitForNoProcesses(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'backend.json'))).toBe(false);
  }, 90_000);
});
