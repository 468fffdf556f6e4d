import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { catalogTool, snapshotOf, TestBackendServer, waitUntil } from '../support/test-backend';
import { buildStdioAgentctl, stdioAgentctlEnv } from './stdio-agentctl';

/**
 * Issue 30 item 9: an agentctl an MCP client starts over stdio (as `client config` writes it)
 * has no launch snapshot; its first pull must not reach the client as a list_changed, since
 * the client's first tools/list already waited for it and carries the same list.
 */
describe('agentctl --stdio without a launch snapshot (official SDK client)', () => {
  let dir: string;
  let backend: TestBackendServer;
  let client: Client;
  let transport: StdioClientTransport;
  let listChanged = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-stdio-first-'));
    const args = await buildStdioAgentctl(join(dir, 'stdio-agentctl.js'));
    backend = await TestBackendServer.start();
    const env: Record<string, string> = stdioAgentctlEnv(backend, '');
    delete env.TOOLPORT_SNAPSHOT_FILE;
    transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'pipe', env });
    client = new Client({ name: 'stdio-first-snapshot', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await backend?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends no list_changed after connecting with an unchanged list, and one for a real change', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['get_task_context', 'kandev_acme_tools_add_tag']);
    await waitUntil(() => backend.backend.pulls >= 1, 5000, 'the first pull');
    // Time for a notification sent at the first snapshot to arrive.
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(listChanged).toBe(0);
    expect((await client.listTools()).tools).toHaveLength(2);

    await waitUntil(() => backend.backend.hellos.length > 0, 5000, 'the hello');
    const response = await fetch(`${backend.backend.hellos[0].controlUrl}/api/v1/mcp/plugin-tools`, {
      method: 'PUT',
      headers: { authorization: 'Bearer control', 'content-type': 'application/json' },
      body: JSON.stringify(snapshotOf([catalogTool('acme.tools', 'add_tag'), catalogTool('acme.tools', 'remove_tag')], 2)),
    });
    expect(await response.json()).toMatchObject({ outcome: 'applied', revision: 2 });
    await waitUntil(() => listChanged === 1, 2000, 'list_changed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(listChanged).toBe(1);
  }, 30_000);
});
