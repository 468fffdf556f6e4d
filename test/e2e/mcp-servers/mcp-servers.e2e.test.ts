import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { writeMcpServerPackage } from '../../support/packages/mcp-server-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { pluginFolders } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const server = (name: string) => `\${package}/node_modules/@modelcontextprotocol/${name}/dist/index.js`;

/**
 * Real npm MCP servers installed as plugins through the real CLI (docs/plugin-protocol.md,
 * MCP servers), listed and called by an agent through its session's agentctl with the
 * official MCP client.
 */
describe('MCP servers as plugins', () => {
  const world = new BackendWorld([], { prefix: 'toolport-mcp-servers-' });
  const at = () => ['--data-dir', world.dataDir];

  beforeAll(async () => {
    await world.start();
  }, 60_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('installs server-memory, imports its tools with their server names, and answers create_entities and read_graph', async () => {
    const dir = writeMcpServerPackage(
      join(world.root, 'memory-package'),
      {
        api_version: 1,
        id: 'mcp.memory',
        version: '1.0.0',
        runtime: { type: 'mcp-stdio', command: 'node', args: [server('server-memory')], env: { MEMORY_FILE_PATH: '${data_dir}/memory.jsonl' } },
      },
      ['@modelcontextprotocol/server-memory'],
    );
    const installed = await runToolport(['plugin', 'install', dir, '--json', ...at()]);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const record = JSON.parse(installed.stdout) as { status: string; tools: string[]; server: unknown };
    expect(record.status).toBe('active');
    expect(record.server).toEqual({ name: expect.any(String), version: expect.any(String) });
    expect(record.tools).toEqual(expect.arrayContaining(['kandev_mcp_memory_create_entities', 'kandev_mcp_memory_read_graph']));

    const info = JSON.parse((await runToolport(['plugin', 'info', 'mcp.memory', '--json', ...at()])).stdout) as {
      agent_tools: Array<{ name: string; server_name: string }>;
    };
    expect(info.agent_tools.find((tool) => tool.name === 'read_graph')).toMatchObject({ server_name: 'read_graph', surfaces: ['kanban-task', 'office-task'] });

    const session = await world.session('kanban-task', 'task-memory');
    const agent = await world.agent(session);
    expect(await agent.toolNames()).toEqual(expect.arrayContaining(['kandev_mcp_memory_create_entities', 'kandev_mcp_memory_read_graph']));
    const created = await agent.call('kandev_mcp_memory_create_entities', {
      entities: [{ name: 'Toolport', entityType: 'project', observations: ['runs MCP servers as plugins'] }],
    });
    expect(created.isError).toBeFalsy();
    const graph = await agent.call('kandev_mcp_memory_read_graph', {});
    expect(graph.isError).toBeFalsy();
    expect(resultText(graph)).toContain('runs MCP servers as plugins');
    // Its data lives in the plugin's own data dir, where ${data_dir} pointed.
    expect(readFileSync(join(pluginFolders(world.dataDir), 'plugin-data', 'mcp.memory', 'memory.jsonl'), 'utf8')).toContain('Toolport');
  });

  it('installs server-filesystem with its directory granted as a write path: writes and reads a file there, and is refused outside it', async () => {
    const shared = join(world.root, 'shared');
    mkdirSync(shared);
    // Under a root backend the server runs as a uid of its own: the operator makes the granted folder writable to it.
    chmodSync(shared, 0o777);
    const outside = join(world.root, 'outside.txt');
    writeFileSync(outside, 'not yours');
    const dir = writeMcpServerPackage(
      join(world.root, 'files-package'),
      {
        api_version: 1,
        id: 'mcp.files',
        version: '1.0.0',
        runtime: { type: 'mcp-stdio', command: 'node', args: [server('server-filesystem'), shared], surfaces: ['kanban-task'] },
        permissions: { write_paths: [shared] },
      },
      ['@modelcontextprotocol/server-filesystem'],
    );
    const refused = await runToolport(['plugin', 'install', dir, ...at()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PERMISSION_NOT_GRANTED');

    const installed = await runToolport(['plugin', 'install', dir, '--grant', 'write_paths', '--json', ...at()]);
    expect(installed.code).toBe(0);
    expect(JSON.parse(installed.stdout)).toMatchObject({ status: 'active', permissions: { write_paths: [shared] } });

    const session = await world.session('kanban-task', 'task-files');
    const agent = await world.agent(session);
    const written = await agent.call('kandev_mcp_files_write_file', { path: join(shared, 'note.txt'), content: 'hello from an agent' });
    expect(written.isError ? resultText(written) : 'written').toBe('written');
    expect(readFileSync(join(shared, 'note.txt'), 'utf8')).toBe('hello from an agent');
    const read = await agent.call('kandev_mcp_files_read_text_file', { path: join(shared, 'note.txt') });
    expect(resultText(read)).toContain('hello from an agent');

    const denied = await agent.call('kandev_mcp_files_read_text_file', { path: outside });
    expect(denied.isError).toBe(true);
    expect(resultText(denied)).not.toContain('not yours');
  });
});
