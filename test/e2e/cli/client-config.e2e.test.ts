import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { REPO_ROOT } from '../../support/processes/toolport-paths';

// Real processes on a shared 2-core machine: each CLI run and each stdio agentctl costs a Node start.
jest.setTimeout(60_000);

interface StdioEntry {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Runs `entry` as the client would (its command, its arguments, its env, from another folder) and lists its tools with the official SDK client. */
async function toolsThroughStdio(entry: StdioEntry, cwd: string): Promise<string[]> {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: entry.env, cwd, stderr: 'pipe' });
  const client = new Client({ name: 'client-config-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/**
 * `toolport client config` (docs/clients.md): what it prints is what each client reads, the
 * stdio entry starts a working agentctl, `--write` merges into the client's file and never
 * overwrites one it cannot read, and `--session` issues a fresh token.
 */
describe('toolport client config', () => {
  const world = new BackendWorld(['--health-interval-ms', '60000'], { prefix: 'toolport-clients-' });
  let home: string;
  const at = () => ['--data-dir', world.dataDir];
  const asUser = () => ({ env: { HOME: home, XDG_CONFIG_HOME: '' } });

  beforeAll(async () => {
    await world.start();
    await world.install(join(REPO_ROOT, 'examples', 'plugins', 'echo'));
    home = join(world.root, 'home');
    mkdirSync(home);
  }, 60_000);

  afterAll(async () => {
    expect(await world.gracefulTeardown()).toMatchObject({ exitCode: 0, swept: [] });
  }, 30_000);

  it('prints the Claude Desktop stdio entry; run as the client runs it, it answers tools/list', async () => {
    const run = await runToolport(['client', 'config', '--client', 'claude-desktop', '--task', 'T-1', '--workspace', 'W-1', ...at()]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(run.stdout) as { mcpServers: Record<string, StdioEntry> };
    expect(Object.keys(printed)).toEqual(['mcpServers']);
    const entry = printed.mcpServers.toolport!;
    expect(entry).toEqual({
      command: process.execPath,
      args: [join(REPO_ROOT, 'bin', 'toolport'), 'agentctl', '--backend-url', world.backend.url, '--stdio', '--no-control-api'],
      env: { TOOLPORT_SESSION_TOKEN: expect.any(String) },
    });
    // The token is in the environment only, never on the command line.
    expect(entry.args.join(' ')).not.toContain(entry.env.TOOLPORT_SESSION_TOKEN);
    expect(await toolsThroughStdio(entry, home)).toEqual(expect.arrayContaining(['get_task_context', 'kandev_toolport_echo_echo']));
  });

  it('prints a Cursor HTTP entry with the bearer header of a launched agentctl, which the SDK client reaches', async () => {
    const run = await runToolport(['client', 'config', '--client', 'cursor', '--transport', 'http', '--task', 'T-2', '--workspace', 'W-1', ...at()]);
    expect(run.code).toBe(0);
    const entry = (JSON.parse(run.stdout) as { mcpServers: { toolport: { url: string; headers: Record<string, string> } } }).mcpServers.toolport;
    expect(entry).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
      headers: { Authorization: expect.stringMatching(/^Bearer \S+$/) },
    });
    const client = new Client({ name: 'client-config-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('kandev_toolport_echo_echo');
    } finally {
      await client.close();
    }
  });

  it('--write merges into the client’s own file, keeping every other key and server and the file’s mode', async () => {
    const file = join(home, '.claude.json');
    writeFileSync(file, JSON.stringify({ numStartups: 3, mcpServers: { other: { type: 'stdio', command: 'other-server', args: [] } } }), { mode: 0o640 });
    const run = await runToolport(['client', 'config', '--client', 'claude-code', '--task', 'T-3', '--workspace', 'W-1', '--write', ...at()], asUser());
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`Added the MCP server "toolport" in ${file} (restart claude-code to load it).\n`);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { numStartups: number; mcpServers: Record<string, StdioEntry> };
    expect(written.numStartups).toBe(3);
    expect(written.mcpServers.other).toEqual({ type: 'stdio', command: 'other-server', args: [] });
    expect(written.mcpServers.toolport).toMatchObject({ type: 'stdio', command: process.execPath });
    expect(statSync(file).mode & 0o777).toBe(0o640);

    // Again: the entry is replaced, not doubled; a new file (VS Code's, under ~/.config) is made 0600.
    const again = await runToolport(['client', 'config', '--client', 'claude-code', '--task', 'T-3', '--workspace', 'W-1', '--write', ...at()], asUser());
    expect(again.stdout).toContain('Replaced the MCP server "toolport"');
    const vscode = await runToolport(['client', 'config', '--client', 'vscode', '--task', 'T-4', '--workspace', 'W-1', '--write', ...at()], asUser());
    expect(vscode.code).toBe(0);
    const vscodeFile =
      process.platform === 'darwin'
        ? join(home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json')
        : join(home, '.config', 'Code', 'User', 'mcp.json');
    const vscodeEntry = (JSON.parse(readFileSync(vscodeFile, 'utf8')) as { servers: Record<string, StdioEntry> }).servers.toolport!;
    expect(vscodeEntry).toMatchObject({ type: 'stdio', command: process.execPath, env: { TOOLPORT_SESSION_TOKEN: expect.any(String) } });
    expect(statSync(vscodeFile).mode & 0o777).toBe(0o600);
    expect(await toolsThroughStdio(vscodeEntry, home)).toContain('get_task_context');
  });

  it('refuses a malformed file with one line naming it, leaving it as it was and issuing no token', async () => {
    const file = join(home, '.cursor', 'mcp.json');
    mkdirSync(join(home, '.cursor'), { recursive: true });
    writeFileSync(file, '{ "mcpServers": { "mine": { "command": "x" }, } ');
    const sessionsBefore = (await world.api<unknown[]>('GET', '/api/v1/sessions')).body.length;
    const run = await runToolport(['client', 'config', '--client', 'cursor', '--task', 'T-5', '--workspace', 'W-1', '--write', ...at()], asUser());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(`^toolport: ${file.replace(/[.]/g, '\\.')} is not valid JSON \\(.*\\); fix it or move it away, it was left as it is\\n$`),
    );
    expect(readFileSync(file, 'utf8')).toBe('{ "mcpServers": { "mine": { "command": "x" }, } ');
    expect((await world.api<unknown[]>('GET', '/api/v1/sessions')).body.length).toBe(sessionsBefore);

    writeFileSync(file, '{ "mcpServers": [] }');
    const wrongShape = await runToolport(['client', 'config', '--client', 'cursor', '--task', 'T-5', '--workspace', 'W-1', '--write', ...at()], asUser());
    expect(wrongShape).toMatchObject({ code: 1, stderr: `toolport: ${file}: "mcpServers" is not an object; fix it or move it away, it was left as it is\n` });
  });

  it('--session issues that session a fresh token, says so on stderr, and the new entry works', async () => {
    const started = await runToolport([
      'session',
      'start',
      '--task',
      'T-6',
      '--workspace',
      'W-1',
      '--surface',
      'kanban-task',
      '--no-launch',
      '--json',
      ...at(),
    ]);
    const session = JSON.parse(started.stdout) as { session_id: string; agentctl: { session_token: string } };
    const run = await runToolport(['client', 'config', '--client', 'claude-desktop', '--session', session.session_id, ...at()]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`Issued a new session token for session ${session.session_id}; its old token no longer links.\n`);
    const entry = (JSON.parse(run.stdout) as { mcpServers: { toolport: StdioEntry } }).mcpServers.toolport;
    expect(entry.env.TOOLPORT_SESSION_TOKEN).not.toBe(session.agentctl.session_token);
    expect(await toolsThroughStdio(entry, home)).toContain('get_task_context');

    // Linked now (or dead once that client went): a launched session is refused outright.
    const launched = JSON.parse(
      (await runToolport(['session', 'start', '--task', 'T-7', '--workspace', 'W-1', '--surface', 'kanban-task', '--json', ...at()])).stdout,
    ) as {
      session_id: string;
    };
    const refused = await runToolport(['client', 'config', '--client', 'cursor', '--session', launched.session_id, ...at()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('SESSION_NOT_REISSUABLE');
  });

  it('says what is wrong with the options in one line, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['--client', 'claude-desktop', '--transport', 'http', '--task', 'T', '--workspace', 'W'],
        /claude-desktop starts its MCP servers itself: use --transport stdio/,
      ],
      [['--client', 'zed', '--task', 'T', '--workspace', 'W'], /--client must be one of claude-desktop, cursor, vscode, claude-code/],
      [['--client', 'cursor'], /name the session: --session ID, or --task T --workspace W/],
      [['--client', 'cursor', '--session', 'S', '--transport', 'http'], /--session issues a new token for a session whose agentctl the client starts/],
    ];
    for (const [args, message] of cases) {
      const run = await runToolport(['client', 'config', ...args, ...at()]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
  });
});
