import { join } from 'node:path';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(30_000);

const RAW_SOURCE = `require('./test/fixtures/plugins/status-plugin.js');`;
const SECRET = 'sk-e2e-secret-9c41';
const tool = (name: string) => ({ name, description: `The ${name} tool.`, surfaces: ['kanban-task'], input_schema: { type: 'object' } });
const SCHEMA = {
  type: 'object',
  properties: { base_url: { type: 'string' }, api_token: { type: 'string', writeOnly: true } },
  required: ['base_url', 'api_token'],
};

/** Issue 30 item 3: adding a config_schema in the development loop, through the real CLI and backend. */
describe('install --force to a version whose config_schema the stored configuration does not satisfy', () => {
  const world = new BackendWorld([], { prefix: 'toolport-schema-loop-' });
  const at = () => ['--data-dir', world.dataDir];
  const pkg = (name: string, version: string, schema?: object) =>
    writePluginPackage(join(world.root, name), {
      manifest: { api_version: 1, id: 'loop.keys', version, display_name: 'Keys', ...(schema ? { config_schema: schema } : {}), agent_tools: [tool('echo')] },
      source: RAW_SOURCE,
    });

  beforeAll(async () => {
    await world.start();
    await world.install(pkg('v1', '1.0.0'));
    // Set while no schema says api_token is a secret.
    expect((await runToolport(['plugin', 'config', 'set', 'loop.keys', 'api_token=-', ...at()], { input: SECRET })).code).toBe(0);
  }, 60_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('a plain upgrade keeps refusing with CONFIG_INVALID, and the plugin keeps serving', async () => {
    const upgrade = await runToolport(['plugin', 'upgrade', pkg('v2', '2.0.0', SCHEMA), ...at()]);
    expect(upgrade.code).toBe(1);
    expect(upgrade.stderr).toContain('CONFIG_INVALID');
    const list = JSON.parse((await runToolport(['plugin', 'list', '--json', ...at()])).stdout) as Array<{ id: string; status: string; version: string }>;
    expect(list).toEqual([expect.objectContaining({ id: 'loop.keys', status: 'active', version: '1.0.0' })]);
  });

  it('answers 200 with the needs_config record naming what is missing, and the secret is never shown in clear again', async () => {
    const forced = await runToolport(['plugin', 'install', pkg('v1-schema', '1.0.0', SCHEMA), '--force', ...at()]);
    expect(forced).toMatchObject({ code: 0, stderr: '' });
    expect(forced.stdout).toContain('loop.keys 1.0.0 (needs_config)');
    expect(forced.stdout).toContain('plugin config set loop.keys base_url=…');
    expect(forced.stdout).not.toContain(SECRET);

    const json = await runToolport(['plugin', 'install', pkg('v1-schema-again', '1.0.0', SCHEMA), '--force', '--json', ...at()]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'needs_config', last_error: expect.stringContaining('base_url') });
    // Its tools left the catalog with the old process.
    const catalog = JSON.parse((await runToolport(['catalog', '--json', ...at()])).stdout) as { tools: unknown[] };
    expect(catalog.tools).toEqual([]);

    const get = await runToolport(['plugin', 'config', 'get', 'loop.keys', ...at()]);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain('********');
    expect(get.stdout).not.toContain(SECRET);
    const getJson = await runToolport(['plugin', 'config', 'get', 'loop.keys', '--json', ...at()]);
    expect(JSON.parse(getJson.stdout)).toEqual({ values: { api_token: '********' } });
    const info = await runToolport(['plugin', 'info', 'loop.keys', ...at()]);
    expect(info.stdout).not.toContain(SECRET);

    // Setting the rest keeps the stored secret and starts it.
    const set = await runToolport(['plugin', 'config', 'set', 'loop.keys', 'base_url=https://x.example', ...at()]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('active');
  });
});
