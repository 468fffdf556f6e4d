import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(30_000);

const RAW_SOURCE = `require('./test/fixtures/plugins/status-plugin.js');`;
const tool = { name: 'echo', description: 'The echo tool.', surfaces: ['kanban-task'], input_schema: { type: 'object' } };

/** Grants at install and upgrade (docs/lifecycle.md, "Permissions and grants") through the real CLI, HTTP API and backend. */
describe('permission grants', () => {
  const world = new BackendWorld([], { prefix: 'toolport-grants-' });
  const at = () => ['--data-dir', world.dataDir];
  const pkg = (name: string, id: string, version: string, permissions?: object) =>
    writePluginPackage(join(world.root, name), {
      manifest: { api_version: 1, id, version, ...(permissions ? { permissions } : {}), agent_tools: [tool] },
      source: RAW_SOURCE,
    });
  const plugins = async () =>
    ((await world.api('GET', '/api/v1/plugins')).body as Array<{ id: string; version: string; status: string }>).map((p) => `${p.id}@${p.version}`).sort();

  beforeAll(async () => {
    await world.start();
  }, 60_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('refuses an install asking for what was not granted with PERMISSION_NOT_GRANTED, exit 1, keeping nothing', async () => {
    const refused = await runToolport([
      'plugin',
      'install',
      pkg('net-1', 'grants.net', '1.0.0', { network: true, env: ['HTTPS_PROXY'] }),
      '--grant',
      'env',
      ...at(),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PERMISSION_NOT_GRANTED');
    expect(refused.stderr).toContain('permissions.network');
    expect(refused.stderr).not.toContain('permissions.env');
    expect(await plugins()).toEqual([]);
  });

  it('refuses an unknown grant name with exit 2, and over HTTP with 400 BAD_REQUEST', async () => {
    const usage = await runToolport(['plugin', 'install', pkg('net-2', 'grants.net', '1.0.0', { network: true }), '--grant', 'netwrk', ...at()]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('netwrk');
    const http = await world.api('POST', '/api/v1/plugins', { path: join(world.root, 'net-2'), grants: ['netwrk'] });
    expect(http.status).toBe(400);
    expect(http.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect(await plugins()).toEqual([]);
  });

  it('answers 422 with one detail per permission over HTTP', async () => {
    const http = await world.api('POST', '/api/v1/plugins', { path: pkg('net-3', 'grants.net', '1.0.0', { network: true, env: ['HTTPS_PROXY'] }) });
    expect(http.status).toBe(422);
    expect(http.body).toMatchObject({ error: { code: 'PERMISSION_NOT_GRANTED' } });
    expect((http.body as { error: { details: Array<{ path: string }> } }).error.details.map((d) => d.path)).toEqual(['permissions.network', 'permissions.env']);
  });

  it('installs with --grant, shows the permissions on the record and in plugin info, and ignores grants not asked', async () => {
    const installed = await runToolport([
      'plugin',
      'install',
      pkg('net-4', 'grants.net', '1.0.0', { network: true }),
      '--grant',
      'network',
      '--grant',
      'write_paths',
      '--json',
      ...at(),
    ]);
    expect(installed.code).toBe(0);
    expect(JSON.parse(installed.stdout)).toMatchObject({ status: 'active', permissions: { network: true, read_paths: [], write_paths: [], env: [] } });
    const info = await runToolport(['plugin', 'info', 'grants.net', ...at()]);
    expect(info.stdout).toContain("network: the host's network");
  });

  it('refuses an upgrade whose permissions grow without a grant, the old version still serving; --grant-all lets it through', async () => {
    const grown = pkg('net-5', 'grants.net', '1.1.0', { network: true, env: ['HTTPS_PROXY'] });
    const refused = await runToolport(['plugin', 'upgrade', grown, ...at()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PERMISSION_NOT_GRANTED');
    expect(refused.stderr).toContain('permissions.env');
    expect(await plugins()).toEqual(['grants.net@1.0.0']);
    expect((await world.api('GET', '/api/v1/plugins/grants.net')).body).toMatchObject({ status: 'active' });

    const upgraded = await runToolport(['plugin', 'upgrade', grown, '--grant-all', '--json', ...at()]);
    expect(upgraded.code).toBe(0);
    expect(JSON.parse(upgraded.stdout)).toMatchObject({ version: '1.1.0', status: 'active', permissions: { network: true, env: ['HTTPS_PROXY'] } });
  });

  it('takes ?grant= with a gzip upload', async () => {
    // The raw fixture listens on tcp, which a sandboxed plugin may do only with network.
    const dir = pkg('env-6', 'grants.env', '1.0.0', { network: true, env: ['HTTPS_PROXY'] });
    const tgz = join(world.root, 'env-6.tgz');
    execFileSync('tar', ['czf', tgz, '-C', dir, '.']);
    const upload = (query: string) =>
      fetch(`${world.backend.url}/api/v1/plugins${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${world.backend.token}`, 'content-type': 'application/gzip' },
        body: readFileSync(tgz),
      });
    const refused = await upload('');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error: { code: 'PERMISSION_NOT_GRANTED' } });
    const unknown = await upload('?grant=nope');
    expect(unknown.status).toBe(400);
    const accepted = await upload('?grant=network&grant=env');
    expect(accepted.status).toBe(201);
    expect(await accepted.json()).toMatchObject({ id: 'grants.env', permissions: { env: ['HTTPS_PROXY'] } });
  });
});
