import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminApi, type AdminApi } from '../../support/clients/admin-api';
import { PROBE_TOOLS, writeProbePlugin } from '../../support/packages/probe-plugin';
import { writePluginPackage } from '../../support/packages/plugin-package';
import type { RunningBackend } from '../../support/processes/backend-process';
import { ProcessSandbox } from '../../support/processes/process-sandbox';
import { runSql } from '../../support/postgres/run-sql';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();
const ADMIN_TOKEN = 'e2e-replica-records-admin-token';
const SECRET_KEY = '5c'.repeat(32);

/** A package whose process exits before its handshake, so its install or upgrade fails with PLUGIN_START_FAILED. */
function writeBrokenPlugin(dir: string, id: string, version: string): string {
  return writePluginPackage(dir, {
    manifest: { api_version: 1, id, version, agent_tools: [PROBE_TOOLS.add_tag] },
    source: "process.stderr.write('cannot start\\n'); process.exit(3);",
  });
}

/** docs/operations.md §10 and http-api.md §4: a replica's record answers, and the package bytes it keeps in the store. */
describe('replicas: record answers and kept packages', () => {
  let sandbox: ProcessSandbox;
  let database: string;
  let backend: RunningBackend;
  let api: AdminApi;
  let replicaId: string;

  beforeEach(async () => {
    database = await postgres().createDatabase('records');
    sandbox = new ProcessSandbox('toolport-e2e-replica-records-');
    const dataDir = join(sandbox.root, 'a');
    const env = { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: SECRET_KEY, PGPASSFILE: postgres().writePgpass(sandbox.root) };
    backend = await sandbox.startBackend({ dataDir, env, args: ['--store', postgres().url(database), '--plugin-start-timeout-ms', '10000'] });
    api = adminApi(backend.url, backend.token);
    replicaId = readFileSync(join(dataDir, 'replica-id'), 'utf8').trim();
  }, 60_000);

  afterEach(async () => {
    expect(await sandbox.teardown()).toEqual([]);
    await postgres().dropDatabase(database);
  }, 30_000);

  const keptPackages = () =>
    runSql<{ plugin_id: string; version: string }>(postgres().socketConfig(database), 'SELECT plugin_id, version FROM packages ORDER BY version');

  it('answers install, upgrade, disable, enable and configuration with replicas, as GET does', async () => {
    const installed = await api<any>('POST', '/api/v1/plugins', { path: writeProbePlugin(join(sandbox.root, 'v1'), 'e2e.recs', ['add_tag']) });
    expect(installed.status).toBe(201);
    expect(installed.body.replicas).toEqual([{ id: replicaId, status: 'active', pid: installed.body.pid }]);
    expect(installed.body.pid).toEqual(expect.any(Number));
    expect((await api<any>('GET', '/api/v1/plugins/e2e.recs')).body.replicas).toEqual(installed.body.replicas);

    const upgraded = await api<any>('PUT', '/api/v1/plugins/e2e.recs', { path: writeProbePlugin(join(sandbox.root, 'v2'), 'e2e.recs', ['add_tag'], '2.0.0') });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toMatchObject({ version: '2.0.0', replicas: [{ id: replicaId, status: 'active', pid: upgraded.body.pid }] });
    expect(upgraded.body.pid).not.toBe(installed.body.pid);

    const disabled = await api<any>('POST', '/api/v1/plugins/e2e.recs/disable');
    expect(disabled.body).toMatchObject({ status: 'disabled', pid: null, replicas: [{ id: replicaId, status: 'disabled', pid: null }] });
    const enabled = await api<any>('POST', '/api/v1/plugins/e2e.recs/enable');
    expect(enabled.body).toMatchObject({ status: 'active', replicas: [{ id: replicaId, status: 'active', pid: enabled.body.pid }] });
    const configured = await api<any>('PUT', '/api/v1/plugins/e2e.recs/config', { values: {} });
    expect(configured.status).toBe(200);
    expect(configured.body.replicas).toEqual([{ id: replicaId, status: 'active', pid: configured.body.pid }]);
  });

  it('a failed install or upgrade leaves none of the package bytes it stored', async () => {
    const refused = await api<any>('POST', '/api/v1/plugins', { path: writeBrokenPlugin(join(sandbox.root, 'broken'), 'e2e.recs', '1.0.0') });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('PLUGIN_START_FAILED');
    expect(await keptPackages()).toEqual([]);

    expect((await api<any>('POST', '/api/v1/plugins', { path: writeProbePlugin(join(sandbox.root, 'v1'), 'e2e.recs', ['add_tag']) })).status).toBe(201);
    expect(await keptPackages()).toEqual([{ plugin_id: 'e2e.recs', version: '1.0.0' }]);
    const failed = await api<any>('PUT', '/api/v1/plugins/e2e.recs', { path: writeBrokenPlugin(join(sandbox.root, 'broken-v2'), 'e2e.recs', '2.0.0') });
    expect(failed.status).toBe(422);
    expect(await keptPackages()).toEqual([{ plugin_id: 'e2e.recs', version: '1.0.0' }]);
    // The installed version is untouched and still serving.
    expect((await api<any>('GET', '/api/v1/plugins/e2e.recs')).body).toMatchObject({ version: '1.0.0', status: 'active' });
  });
});
