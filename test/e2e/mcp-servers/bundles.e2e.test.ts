import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { writeMcpServerPackage } from '../../support/packages/mcp-server-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { ProcessRun } from '../../support/processes/process-run';
import { runToolport } from '../../support/processes/run-toolport';
import { REPO_ROOT } from '../../support/processes/toolport-paths';

jest.setTimeout(180_000);

const MCPB_CLI = join(REPO_ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const entry = (name: string) => `node_modules/@modelcontextprotocol/${name}/dist/index.js`;

/** A bundle folder around the npm server `name` (its dependencies under node_modules), packed by the MCPB CLI into `<folder>.mcpb`. */
async function packBundle(folder: string, server: string, manifest: Record<string, unknown>): Promise<string> {
  writeMcpServerPackage(folder, {}, [`@modelcontextprotocol/${server}`]);
  rmSync(join(folder, 'manifest.yaml'));
  writeFileSync(join(folder, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const out = `${folder}.mcpb`;
  const pack = new ProcessRun(process.execPath, [MCPB_CLI, 'pack', folder, out], { env: process.env });
  const code = await pack.closed;
  if (code !== 0) throw new Error(`mcpb pack failed (${code}): ${pack.stdout()}${pack.stderr()}`);
  return out;
}

/**
 * MCP Bundles (`.mcpb`) packed with the MCPB CLI around real npm servers, installed through the
 * real CLI and HTTP API (docs/mcp-servers.md, "Bundles"), and called by an agent through its
 * session with the official MCP client.
 */
describe('MCP Bundles as plugins', () => {
  const world = new BackendWorld([], { prefix: 'toolport-mcpb-' });
  const at = () => ['--data-dir', world.dataDir];

  beforeAll(async () => {
    await world.start();
  }, 60_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('server-filesystem as a bundle: its directories are granted as write paths, set as configuration, and bound into the sandbox', async () => {
    const bundle = await packBundle(join(world.root, 'files-bundle'), 'server-filesystem', {
      manifest_version: '0.3',
      name: 'Files Bundle',
      version: '1.0.0',
      description: 'The filesystem server, bundled',
      author: { name: 'Toolport tests' },
      server: {
        type: 'node',
        entry_point: entry('server-filesystem'),
        mcp_config: { command: 'node', args: [`\${__dirname}/${entry('server-filesystem')}`, '${user_config.allowed_directories}'] },
      },
      user_config: {
        allowed_directories: { type: 'directory', title: 'Allowed directories', description: 'Where it may read and write', multiple: true, required: true },
      },
      compatibility: { platforms: ['darwin', 'linux'] },
    });
    const valid = await runToolport(['plugin', 'validate', bundle]);
    expect(valid).toMatchObject({ code: 0, stdout: expect.stringContaining('is a valid package: files-bundle 1.0.0') });

    const refused = await runToolport(['plugin', 'install', bundle, ...at()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PERMISSION_NOT_GRANTED');

    const installed = await runToolport(['plugin', 'install', bundle, '--grant', 'write_paths', '--json', ...at()]);
    expect(installed.code).toBe(0);
    const record = JSON.parse(installed.stdout) as Record<string, unknown>;
    expect(record).toMatchObject({
      id: 'files-bundle',
      status: 'needs_config',
      package_sha256: createHash('sha256').update(readFileSync(bundle)).digest('hex'),
      permissions: { network: false, write_paths: ['${config.allowed_directories}'] },
    });

    const shared = join(world.root, 'shared');
    const other = join(world.root, 'other');
    for (const folder of [shared, other]) {
      mkdirSync(folder);
      // Under a root backend the server runs as a uid of its own: the operator makes the granted folders writable to it.
      chmodSync(folder, 0o777);
    }
    const outside = join(world.root, 'outside.txt');
    writeFileSync(outside, 'not yours');
    const configured = await runToolport(['plugin', 'config', 'set', 'files-bundle', `allowed_directories=${JSON.stringify([shared, other])}`, ...at()]);
    expect(configured.stderr).toBe('');
    expect(configured.stdout).toContain('files-bundle is active');

    const session = await world.session('kanban-task', 'task-bundle-files');
    const agent = await world.agent(session);
    expect(await agent.toolNames()).toEqual(expect.arrayContaining(['kandev_files_bundle_write_file', 'kandev_files_bundle_list_allowed_directories']));
    for (const folder of [shared, other]) {
      const written = await agent.call('kandev_files_bundle_write_file', { path: join(folder, 'note.txt'), content: `hello in ${folder}` });
      expect(written.isError ? resultText(written) : 'written').toBe('written');
      expect(readFileSync(join(folder, 'note.txt'), 'utf8')).toBe(`hello in ${folder}`);
    }
    const denied = await agent.call('kandev_files_bundle_read_text_file', { path: outside });
    expect(denied.isError).toBe(true);
    expect(resultText(denied)).not.toContain('not yours');
  });

  it('server-memory as a bundle uploaded over HTTP as application/zip, with --id, its data in a directory granted read-write', async () => {
    const bundle = await packBundle(join(world.root, 'memory-bundle'), 'server-memory', {
      manifest_version: '0.2',
      name: 'memory',
      display_name: 'Knowledge graph memory',
      version: '2.0.0',
      description: 'The memory server, bundled',
      author: { name: 'Toolport tests' },
      server: {
        type: 'node',
        entry_point: entry('server-memory'),
        mcp_config: {
          command: 'node',
          args: [`\${__dirname}/${entry('server-memory')}`],
          env: { MEMORY_FILE_PATH: '${user_config.data}${/}memory.jsonl' },
        },
      },
      user_config: { data: { type: 'directory', title: 'Data folder', description: 'Where the graph is kept', required: true } },
    });
    const store = join(world.root, 'memory-store');
    mkdirSync(store);
    chmodSync(store, 0o777);
    const { url, token } = world.backend;
    const uploaded = await fetch(`${url}/api/v1/plugins?id=mcpb.memory&grant=write_paths`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/zip' },
      body: readFileSync(bundle),
    });
    const body = (await uploaded.json()) as Record<string, unknown>;
    expect({ status: uploaded.status, body }).toMatchObject({ status: 201 });
    expect(body).toMatchObject({ id: 'mcpb.memory', version: '2.0.0', status: 'needs_config' });

    const configured = await world.api('PUT', '/api/v1/plugins/mcpb.memory/config', { values: { data: store } });
    expect(configured.body).toMatchObject({ status: 'active' });
    const session = await world.session('kanban-task', 'task-bundle-memory');
    const agent = await world.agent(session);
    const created = await agent.call('kandev_mcpb_memory_create_entities', {
      entities: [{ name: 'Bundle', entityType: 'format', observations: ['installed from a .mcpb'] }],
    });
    expect(created.isError).toBeFalsy();
    expect(resultText(await agent.call('kandev_mcpb_memory_read_graph', {}))).toContain('installed from a .mcpb');
    expect(readFileSync(join(store, 'memory.jsonl'), 'utf8')).toContain('Bundle');

    // An upgrade from a bundle becomes the plugin it names (--id), keeping its configuration and grants.
    const manifest = JSON.parse(readFileSync(join(world.root, 'memory-bundle', 'manifest.json'), 'utf8')) as Record<string, unknown>;
    const next = await packBundle(join(world.root, 'memory-bundle-next'), 'server-memory', { ...manifest, version: '2.1.0' });
    const upgraded = await runToolport(['plugin', 'upgrade', next, '--id', 'mcpb.memory', '--grant', 'write_paths', '--json', ...at()]);
    expect(upgraded).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(upgraded.stdout)).toMatchObject({ id: 'mcpb.memory', version: '2.1.0', status: 'active' });
    expect(resultText(await agent.call('kandev_mcpb_memory_read_graph', {}))).toContain('installed from a .mcpb');
  });
});
