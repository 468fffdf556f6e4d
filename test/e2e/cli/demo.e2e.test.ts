import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { apiClient, TOOLPORT_BIN } from '../support/backend-process';
import { processesMentioning, waitForNoProcesses } from '../support/processes';
import { cleanEnv, runToolport } from './run-toolport';

const root = resolve(__dirname, '..', '..', '..');
const DEMO_TOOLS = ['get_task_context', 'kandev_toolport_echo_echo', 'kandev_toolport_notes_add_note', 'kandev_toolport_notes_list_notes', 'kandev_toolport_notes_search_notes'];

interface DemoRun {
  child: ChildProcess;
  /** stdout up to and including the `MCP token:` line. */
  ready: string;
  output(): string;
  exited: Promise<number | null>;
  mcpUrl: string;
  mcpToken: string;
  sessionId: string;
  backendUrl: string;
}

interface SpawnedDemo {
  child: ChildProcess;
  output(): string;
  errors(): string;
  exited: Promise<number | null>;
  gone(): boolean;
}

/** Spawns the demo in its own process group, as a terminal would run it. */
function spawnDemo(command: string, args: string[]): SpawnedDemo {
  const child = spawn(command, args, { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv({ TOOLPORT_LOG_LEVEL: 'warn' }) });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  return { child, output: () => out, errors: () => err, exited, gone: () => gone };
}

/** Polls the demo's stdout until `pattern` shows up. */
async function waitForOutput(demo: SpawnedDemo, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(demo.output())) {
    if (demo.gone() || Date.now() > deadline) {
      if (!demo.gone()) process.kill(-demo.child.pid!, 'SIGKILL');
      throw new Error(`the demo never printed ${pattern}:\n${demo.output()}\n${demo.errors()}`);
    }
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

/** Starts the demo and waits for its last line. */
async function startDemo(command: string, args: string[], started: ChildProcess[]): Promise<DemoRun> {
  const spawned = spawnDemo(command, args);
  started.push(spawned.child);
  await waitForOutput(spawned, /^MCP token: .*\n/m);
  const { child, exited, output } = spawned;
  const ready = output();
  const field = (pattern: RegExp) => {
    const match = pattern.exec(ready);
    if (!match) throw new Error(`no ${pattern} in the demo output:\n${ready}`);
    return match[1];
  };
  return {
    child,
    ready,
    output,
    exited,
    mcpUrl: field(/^MCP URL: (\S+)$/m),
    mcpToken: field(/^MCP token: (\S+)$/m),
    sessionId: field(/^Session (\S+) for task demo-task/m),
    backendUrl: field(/^Backend: (\S+) /m),
  };
}

async function connect(url: string, token: string): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'demo-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    client,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** `npm start` (toolport demo): a working MCP endpoint to paste, a clean Ctrl-C, a second run that reuses what is installed. */
describe('npm start (toolport demo)', () => {
  let dataDir: string;
  let firstSessionId: string | undefined;
  const started: ChildProcess[] = [];

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'toolport-demo-'));
  });

  afterAll(async () => {
    for (const child of started) {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    const left = await waitForNoProcesses(dataDir, 10_000);
    // An agentctl outlives a backend that was killed (CONTRACT §9); end it so nothing leaks.
    for (const entry of left) {
      try {
        process.kill(entry.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
    expect(left).toEqual([]);
  }, 20_000);

  it('prints the MCP URL and token last; an agent lists the example tools and calls echo; Ctrl-C leaves nothing running', async () => {
    const demo = await startDemo('npm', ['start', '--', '--data-dir', dataDir], started);
    firstSessionId = demo.sessionId;
    expect(demo.ready).toContain('Installed toolport.echo 1.0.0');
    expect(demo.ready).toContain('Installed toolport.notes 1.0.0');
    const lines = demo.ready.trimEnd().split('\n');
    expect(lines.slice(-2)).toEqual([`MCP URL: ${demo.mcpUrl}`, `MCP token: ${demo.mcpToken}`]);
    expect(demo.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const agent = await connect(demo.mcpUrl, demo.mcpToken);
    try {
      const tools = (await agent.client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual(DEMO_TOOLS);
      const result = await agent.client.callTool({ name: 'kandev_toolport_echo_echo', arguments: { message: 'hello from the demo' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        message: 'hello from the demo',
        context: { task_id: 'demo-task', session_id: demo.sessionId, workspace_id: 'demo-workspace', surface: 'kanban-task' },
        invocation_id: expect.any(String),
      });
      const note = await agent.client.callTool({ name: 'kandev_toolport_notes_add_note', arguments: { text: 'kept across demo runs' } });
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
    expect(running.filter((c) => c.includes('/plugins/toolport.'))).toHaveLength(2);
    expect(running.filter((c) => c.includes(' agentctl '))).toHaveLength(1);

    // Ctrl-C in a terminal signals the whole foreground group: npm, its shell and the demo.
    const stoppedAt = Date.now();
    process.kill(-demo.child.pid!, 'SIGINT');
    await demo.exited;
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(await waitForNoProcesses(dataDir)).toEqual([]);
    expect(processesMentioning('bin/toolport demo').filter((p) => p.cmdline.includes(dataDir))).toEqual([]);
    expect(existsSync(join(dataDir, 'backend.json'))).toBe(false);
  }, 90_000);

  it('a second run reuses the installed plugins and their data; the printed stdio command works', async () => {
    const demo = await startDemo(process.execPath, [TOOLPORT_BIN, 'demo', '--data-dir', dataDir], started);
    expect(demo.ready).toContain('Reused toolport.echo 1.0.0');
    expect(demo.ready).toContain('Reused toolport.notes 1.0.0');
    expect(demo.ready).not.toContain('Installed');
    expect(demo.ready.trimEnd().split('\n').slice(-2)).toEqual([`MCP URL: ${demo.mcpUrl}`, `MCP token: ${demo.mcpToken}`]);

    // The first run's session was marked stopped when it shut down.
    const api = apiClient(demo.backendUrl, readFileSync(join(dataDir, 'admin.token'), 'utf8').trim());
    const sessions = await api<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions');
    expect(sessions.body.find((s) => s.session_id === firstSessionId)?.status).toBe('stopped');
    expect(sessions.body.filter((s) => s.session_id !== demo.sessionId && s.status === 'live')).toEqual([]);
    // Nothing from the first run is left `starting` either (its stdio session was ended too).
    const fromFirstRun = sessions.body.filter((s) => !demo.ready.includes(s.session_id) && s.session_id !== demo.sessionId);
    expect(fromFirstRun.length).toBeGreaterThanOrEqual(2);
    expect(fromFirstRun.map((s) => s.status).sort()).toEqual(fromFirstRun.map(() => 'stopped'));
    expect(sessions.body.find((s) => s.session_id === demo.sessionId)?.status).toBe('live');

    const agent = await connect(demo.mcpUrl, demo.mcpToken);
    try {
      // Notes are per task, and the demo's task is the same: the first run's note is still there.
      const listed = await agent.client.callTool({ name: 'kandev_toolport_notes_list_notes', arguments: {} });
      expect(listed.structuredContent).toMatchObject({ total: 1, notes: [{ text: 'kept across demo runs' }] });
    } finally {
      await agent.close();
    }

    const stdioLine = /^ {2}TOOLPORT_SESSION_TOKEN=(\S+) (\S+) (agentctl .*)$/m.exec(demo.ready);
    expect(stdioLine).not.toBeNull();
    const [, sessionToken, executable, rest] = stdioLine!;
    const stdioSession = /its own session (\S+);/.exec(demo.ready)![1];
    const transport = new StdioClientTransport({ command: executable, args: rest.split(' '), env: cleanEnv({ TOOLPORT_SESSION_TOKEN: sessionToken }) as Record<string, string>, stderr: 'pipe' });
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

    process.kill(-demo.child.pid!, 'SIGINT');
    expect(await demo.exited).toBe(0);
    expect(await waitForNoProcesses(dataDir)).toEqual([]);
  }, 90_000);

  it('Ctrl-C while the demo is still starting stops everything it started and exits 0', async () => {
    const demo = spawnDemo(process.execPath, [TOOLPORT_BIN, 'demo', '--data-dir', dataDir]);
    started.push(demo.child);
    // The plugins are up and the session's agentctl is being launched.
    await waitForOutput(demo, /^Reused toolport\.notes /m);
    process.kill(-demo.child.pid!, 'SIGINT');
    const code = await demo.exited;
    expect({ code, stderr: code === 0 ? '' : demo.errors() }).toEqual({ code: 0, stderr: '' });
    expect(await waitForNoProcesses(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'backend.json'))).toBe(false);
  }, 90_000);
});
