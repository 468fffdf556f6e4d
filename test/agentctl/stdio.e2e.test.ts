import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { catalogTool, snapshotOf, TestBackendServer, waitUntil } from '../support/test-backend';
import { buildStdioAgentctl, stdioAgentctlEnv } from './stdio-agentctl';

describe('agentctl --stdio (real process, SDK stdio client)', () => {
  let dir: string;
  let args: string[];
  let backend: TestBackendServer;
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';
  const clientErrors: Error[] = [];
  let listChanged = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-stdio-'));
    args = await buildStdioAgentctl(join(dir, 'stdio-agentctl.js'));
    backend = await TestBackendServer.start();
    const snapshotFile = join(dir, 'snapshot.json');
    writeFileSync(snapshotFile, JSON.stringify(backend.backend.catalog));
    transport = new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: dir,
      stderr: 'pipe',
      env: stdioAgentctlEnv(backend, snapshotFile),
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'stdio-test', version: '1.0.0' });
    client.onerror = (error) => clientErrors.push(error);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    const pid = transport?.pid;
    await client?.close();
    if (pid) await waitUntil(() => !isRunning(pid), 5000, 'the agentctl to exit');
    await backend?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the launch snapshot and calls a plugin tool through the backend', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['get_task_context', 'kandev_acme_tools_add_tag']);
    // agentctl pulls the catalog right after its hello is answered: from then on it is linked.
    await waitUntil(() => backend.backend.pulls === 1, 5000, 'the backend link');
    const result = await client.callTool({ name: 'kandev_acme_tools_add_tag', arguments: { value: 'v' } });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: '{"value":"v"}' }] });
    const context = await client.callTool({ name: 'get_task_context' });
    expect(context.structuredContent).toEqual({ task_id: 'task-1', session_id: 'session-1', workspace_id: 'ws-1', surface: 'kanban-task' });
  });

  it('takes snapshot pushes on its control API and tells the client once', async () => {
    await waitUntil(() => backend.backend.hellos.length > 0, 5000, 'the hello');
    const controlUrl = backend.backend.hellos[0].controlUrl;
    const response = await fetch(`${controlUrl}/api/v1/mcp/plugin-tools`, {
      method: 'PUT',
      headers: { authorization: 'Bearer control', 'content-type': 'application/json' },
      body: JSON.stringify(snapshotOf([catalogTool('acme.tools', 'add_tag'), catalogTool('acme.tools', 'remove_tag')], 2)),
    });
    expect(await response.json()).toMatchObject({ outcome: 'applied', revision: 2 });
    await waitUntil(() => listChanged === 1, 2000, 'list_changed');
    expect((await client.listTools()).tools).toHaveLength(3);
  });

  it('keeps stdout for the protocol: logs are JSON lines on stderr', async () => {
    await waitUntil(() => stderr.includes('"agentctl serving MCP on stdio"'), 2000, 'the startup log');
    const lines = stderr.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(clientErrors).toEqual([]);
    expect(stderr).not.toContain('session-token');
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
