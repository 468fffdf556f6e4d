import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminApi, type AdminApi } from '../../support/clients/admin-api';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { PROBE_SOURCE, writeProbePlugin } from '../../support/packages/probe-plugin';
import type { RunningBackend } from '../../support/processes/backend-process';
import { ProcessSandbox } from '../../support/processes/process-sandbox';
import { processesMentioning } from '../../support/processes/process-table';
import { CuttingRelay } from '../../support/postgres/cutting-relay';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { pluginFolders } from '../../support/processes/toolport-paths';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();
const ADMIN_TOKEN = 'e2e-replicas-admin-token';
const SECRET_KEY = '7a'.repeat(32);
const TOOL = 'kandev_e2e_rep_add_tag';

interface Replica {
  name: string;
  dataDir: string;
  backend: RunningBackend;
  api: AdminApi;
}

interface CopyView {
  id: string;
  status: string;
  pid: number | null;
}

/** Two or three backends (replicas) on one database of the file's private PostgreSQL (docs/operations.md §10). */
describe('replicas on one PostgreSQL store', () => {
  let sandbox: ProcessSandbox;
  let database: string;

  beforeEach(async () => {
    database = await postgres().createDatabase('replicas');
    sandbox = new ProcessSandbox('toolport-e2e-replicas-');
  });

  afterEach(async () => {
    expect(await sandbox.teardown()).toEqual([]);
    await postgres().dropDatabase(database);
  }, 30_000);

  /** A replica on the server itself, or through `relay` (which a test can stop, as a network partition would). */
  async function startReplica(name: string, relay?: CuttingRelay): Promise<Replica> {
    const dataDir = join(sandbox.root, name);
    let pgpass = postgres().writePgpass(sandbox.root);
    let url = postgres().url(database);
    if (relay) {
      pgpass = join(sandbox.root, 'relay-pgpass');
      writeFileSync(pgpass, `127.0.0.1:${relay.port}:*:postgres:${postgres().password}\n`, { mode: 0o600 });
      url = `postgres://postgres@127.0.0.1:${relay.port}/${database}`;
    }
    const env = { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: SECRET_KEY, PGPASSFILE: pgpass };
    const backend = await sandbox.startBackend({ dataDir, env, args: ['--store', url, '--plugin-start-timeout-ms', '10000'] });
    return { name, dataDir, backend, api: adminApi(backend.url, backend.token) };
  }

  const catalogOf = async (replica: Replica) => (await replica.api<{ generation: string; revision: number }>('GET', '/api/v1/catalog')).body;
  const copiesOf = async (replica: Replica, pluginId: string) =>
    (await replica.api<{ replicas: CopyView[] }>('GET', `/api/v1/plugins/${pluginId}`)).body.replicas;
  /**
   * Pids of the plugin processes this replica started from its data dir: the top of each tree
   * (bubblewrap's, for a sandboxed plugin, whose own children mention the same folder).
   */
  const localPids = (replica: Replica, pluginId: string) => {
    const running = processesMentioning(join(pluginFolders(replica.dataDir), 'plugins', pluginId) + '/').filter((p) => p.state !== 'Z');
    const pids = new Set(running.map((p) => p.pid));
    return running.filter((p) => !pids.has(p.ppid)).map((p) => p.pid);
  };

  async function agentOn(replica: Replica, task: string): Promise<McpAgent> {
    const started = await replica.api<any>('POST', '/api/v1/sessions', { task_id: task, workspace_id: 'ws-e2e', surface: 'kanban-task' });
    expect(started.status).toBe(201);
    return sandbox.connect(started.body.mcp.url, started.body.mcp.token);
  }

  /**
   * Every replica answers the same generation and revision. A change reaches the others through
   * the store's notification, so they agree within moments of it (5 s at most, docs/operations.md §10).
   */
  async function oneCatalog(replicas: Replica[]): Promise<{ generation: string; revision: number }> {
    return eventually(
      async () => {
        const [first, ...others] = await Promise.all(replicas.map(catalogOf));
        return others.every((other) => other.generation === first.generation && other.revision === first.revision) ? first : undefined;
      },
      5000,
      'every replica to answer the same catalog',
    );
  }

  it('keeps one catalog, carries a change made through either replica out on both, and pushes it once to an agent linked to the other', async () => {
    const a = await startReplica('a');
    const b = await startReplica('b');
    const start = await oneCatalog([a, b]);

    // Install through A: A answers once its own copy is active; B runs its copy within 5 s.
    const installed = (await a.api<any>('POST', '/api/v1/plugins', { path: writeProbePlugin(join(sandbox.root, 'pkg'), 'e2e.rep', ['add_tag']) })).body;
    expect(installed.status).toBe('active');
    expect(localPids(a, 'e2e.rep')).toHaveLength(1);
    const bothActive = await eventually(
      async () => {
        const copies = await copiesOf(b, 'e2e.rep');
        return copies.length === 2 && copies.every((copy) => copy.status === 'active' && copy.pid !== null) ? copies : undefined;
      },
      5000,
      'B to run its copy',
    );
    expect(bothActive.map((copy) => copy.pid).sort()).toEqual([...localPids(a, 'e2e.rep'), ...localPids(b, 'e2e.rep')].sort());
    expect((await oneCatalog([a, b])).revision).toBe(start.revision + 1);

    // An agent whose agentctl B launched calls B's own copy.
    const agent = await agentOn(b, 'task-on-b');
    expect(await agent.toolNames()).toContain(TOOL);
    expect(await agent.call(TOOL, { tag: 'via-b' })).toMatchObject({ structuredContent: { tag: 'via-b' } });

    // Disable through A: B's agent hears it exactly once, B stops its copy.
    const heard = agent.listChanged();
    expect((await a.api<any>('POST', '/api/v1/plugins/e2e.rep/disable')).status).toBe(200);
    await agent.waitForListChanged(heard + 1);
    expect(await agent.toolNames()).not.toContain(TOOL);
    await eventually(() => (localPids(b, 'e2e.rep').length === 0 ? true : undefined), 5000, 'B to stop its copy');
    expect((await oneCatalog([a, b])).revision).toBe(start.revision + 2);

    // Enable and disable through B: A follows each within 5 s; one revision per change.
    expect((await b.api<any>('POST', '/api/v1/plugins/e2e.rep/enable')).body.status).toBe('active');
    await eventually(() => (localPids(a, 'e2e.rep').length === 1 ? true : undefined), 5000, 'A to start its copy');
    await agent.waitForListChanged(heard + 2);
    expect(await agent.call(TOOL, { tag: 'again' })).toMatchObject({ structuredContent: { tag: 'again' } });
    expect((await b.api<any>('POST', '/api/v1/plugins/e2e.rep/disable')).status).toBe(200);
    await eventually(() => (localPids(a, 'e2e.rep').length === 0 ? true : undefined), 5000, 'A to stop its copy');
    await agent.waitForListChanged(heard + 3);
    expect((await oneCatalog([a, b])).revision).toBe(start.revision + 4);
    // Exactly once each: no duplicate push reached the agent.
    expect(agent.listChanged()).toBe(heard + 3);
  });

  it('survives a replica killed mid-call: the call ends BACKEND_UNAVAILABLE, its agentctl fails over, the dead one leaves, a restart keeps the generation', async () => {
    const a = await startReplica('a');
    const b = await startReplica('b');
    await a.api('POST', '/api/v1/plugins', { path: writeProbePlugin(join(sandbox.root, 'pkg'), 'e2e.rep', ['add_tag', 'hang']) });
    await eventually(async () => ((await copiesOf(a, 'e2e.rep')).every((copy) => copy.status === 'active') ? true : undefined), 5000, 'both copies');
    const before = await oneCatalog([a, b]);

    // The agentctl A launched is told A's URL first, then B's.
    const launchFalse = await a.api<any>('POST', '/api/v1/sessions', { task_id: 'elsewhere', workspace_id: 'ws-e2e', surface: 'kanban-task', launch: false });
    expect(launchFalse.body.agentctl.backend_url).toBe(`${a.backend.url},${b.backend.url}`);
    const agent = await agentOn(a, 'task-on-a');
    expect(await agent.call(TOOL, { tag: 'on-a' })).toMatchObject({ structuredContent: { tag: 'on-a' } });

    const hanging = agent.call('kandev_e2e_rep_hang', {});
    const calls = join(pluginFolders(a.dataDir), 'plugin-data', 'e2e.rep', 'calls.jsonl');
    await eventually(() => existsSync(calls) && readFileSync(calls, 'utf8').includes('"tool":"hang"'), 5000, "the call to reach A's copy");
    const killedAt = Date.now();
    await a.backend.stop('SIGKILL');
    expect(resultText(await hanging)).toMatch(/^\[BACKEND_UNAVAILABLE\]/);

    // Within 5 s the agentctl links to B and the next call works there.
    const served = await eventually(
      async () => {
        const result = await agent.call(TOOL, { tag: 'on-b' });
        return result.isError ? undefined : result;
      },
      5000,
      'the agentctl to fail over to B',
      { everyMs: 100 },
    );
    expect(served).toMatchObject({ structuredContent: { tag: 'on-b' } });
    expect(Date.now() - killedAt).toBeLessThan(5000);

    // The dead replica leaves `replicas` within 10 s; the catalog does not move.
    await eventually(async () => ((await copiesOf(b, 'e2e.rep')).length === 1 ? true : undefined), 10_000, 'A to leave replicas');
    expect(await catalogOf(b)).toMatchObject({ generation: before.generation, revision: before.revision });

    // A restarts while B serves: it rejoins with the same generation and revision.
    const again = await startReplica('a');
    expect(await oneCatalog([again, b])).toMatchObject({ generation: before.generation, revision: before.revision });
    await eventually(async () => ((await copiesOf(b, 'e2e.rep')).length === 2 ? true : undefined), 5000, 'A to rejoin replicas');

    // A clean stop of B leaves its agentctl (now linked to B) running: it fails over back to A.
    expect(await b.backend.stop('SIGTERM')).toBe(0);
    const back = await eventually(
      async () => {
        const result = await agent.call(TOOL, { tag: 'back-on-a' });
        return result.isError ? undefined : result;
      },
      5000,
      'the agentctl to fail over to A',
      { everyMs: 100 },
    );
    expect(back).toMatchObject({ structuredContent: { tag: 'back-on-a' } });
    expect(await catalogOf(again)).toMatchObject({ generation: before.generation, revision: before.revision });
  });

  it('lists the tools while one copy is active, refuses calls on a replica whose copy is in error, restarts it on enable, and carries an upgrade and a configuration change to the other replica', async () => {
    const a = await startReplica('a');
    const b = await startReplica('b');
    // B's copy cannot start while this file is in its plugin data folder.
    const refuse = join(pluginFolders(b.dataDir), 'plugin-data', 'e2e.rep', 'refuse-start');
    mkdirSync(join(pluginFolders(b.dataDir), 'plugin-data', 'e2e.rep'), { recursive: true });
    writeFileSync(refuse, '');
    const source = PROBE_SOURCE.replace('{ appendFileSync, mkdirSync }', '{ appendFileSync, existsSync, mkdirSync }').replace(
      'void serve(',
      "if (existsSync(join(dir, 'refuse-start'))) process.exit(3);\nvoid serve(",
    );
    const installed = (
      await a.api<any>('POST', '/api/v1/plugins', { path: writeProbePlugin(join(sandbox.root, 'pkg'), 'e2e.rep', ['add_tag'], '1.0.0', source) })
    ).body;
    expect(installed.status).toBe('active');
    const split = await eventually(
      async () => {
        const copies = await copiesOf(a, 'e2e.rep');
        return copies.length === 2 && copies.some((copy) => copy.status === 'error') ? copies : undefined;
      },
      5000,
      "B's copy to fail",
    );
    expect(split.map(({ status, pid }) => ({ status, pid: pid === null ? null : 'some' })).sort((x, y) => x.status.localeCompare(y.status))).toEqual([
      { status: 'active', pid: 'some' },
      { status: 'error', pid: null },
    ]);
    const revision = (await oneCatalog([a, b])).revision;

    // B lists the tools (A's copy is active) but refuses to call them with its own copy down.
    const agent = await agentOn(b, 'task-on-b');
    expect(await agent.toolNames()).toContain(TOOL);
    expect(resultText(await agent.call(TOOL, { tag: 'refused' }))).toMatch(/^\[PLUGIN_NOT_ACTIVE\]/);

    // Enable on the desired-active plugin restarts the copy in error, and moves no revision.
    rmSync(refuse);
    const pidOnA = localPids(a, 'e2e.rep');
    expect((await a.api<any>('POST', '/api/v1/plugins/e2e.rep/enable')).body.status).toBe('active');
    await eventually(async () => ((await copiesOf(b, 'e2e.rep')).every((copy) => copy.status === 'active') ? true : undefined), 5000, "B's copy to restart");
    expect(localPids(a, 'e2e.rep')).toEqual(pidOnA);
    expect(await agent.call(TOOL, { tag: 'served' })).toMatchObject({ structuredContent: { tag: 'served' } });
    expect((await oneCatalog([a, b])).revision).toBe(revision);

    // Upgrade through B: A unpacks 2.0.0 from the store and runs it within 5 s.
    const upgraded = (
      await b.api<any>('PUT', '/api/v1/plugins/e2e.rep', { path: writeProbePlugin(join(sandbox.root, 'pkg2'), 'e2e.rep', ['add_tag'], '2.0.0') })
    ).body;
    expect(upgraded).toMatchObject({ version: '2.0.0', status: 'active' });
    const newOnA = join(pluginFolders(a.dataDir), 'plugins', 'e2e.rep', '2.0.0') + '/';
    await eventually(() => (processesMentioning(newOnA).some((p) => p.state !== 'Z') ? true : undefined), 5000, 'A to run 2.0.0');
    await eventually(
      () => (processesMentioning(join(pluginFolders(a.dataDir), 'plugins', 'e2e.rep', '1.0.0') + '/').every((p) => p.state === 'Z') ? true : undefined),
      5000,
      'A to stop 1.0.0',
    );
    expect((await oneCatalog([a, b])).revision).toBe(revision + 1);

    // A configuration change through A: B replaces its copy (a new process with the new configuration).
    const onB = localPids(b, 'e2e.rep');
    expect((await a.api<any>('PUT', '/api/v1/plugins/e2e.rep/config', { values: { mode: 'replicas' } })).status).toBe(200);
    await eventually(
      () => {
        const now = localPids(b, 'e2e.rep');
        return now.length === 1 && now[0] !== onB[0] ? true : undefined;
      },
      5000,
      'B to restart its copy with the new configuration',
    );
    expect(await agent.call(TOOL, { tag: 'configured' })).toMatchObject({ structuredContent: { tag: 'configured' } });
    expect((await oneCatalog([a, b])).revision).toBe(revision + 1);

    // A forced reinstall of the same version through A: B unpacks the new bytes and restarts its copy.
    const rebuilt = PROBE_SOURCE.replace('void serve(', "globalThis.rebuiltMarker = 'rebuilt-2.0.0';\nvoid serve(");
    const forced = await a.api<any>('POST', '/api/v1/plugins', {
      path: writeProbePlugin(join(sandbox.root, 'pkg3'), 'e2e.rep', ['add_tag'], '2.0.0', rebuilt),
      force: true,
    });
    expect(forced.body).toMatchObject({ version: '2.0.0', status: 'active' });
    const mainOnB = join(pluginFolders(b.dataDir), 'plugins', 'e2e.rep', '2.0.0', 'main.js');
    await eventually(
      () => (existsSync(mainOnB) && readFileSync(mainOnB, 'utf8').includes('rebuilt-2.0.0') && localPids(b, 'e2e.rep').length === 1 ? true : undefined),
      5000,
      'B to run the rebuilt bytes',
    );
    expect(await agent.call(TOOL, { tag: 'rebuilt' })).toMatchObject({ structuredContent: { tag: 'rebuilt' } });
  });

  it('with three replicas: one catalog, +1 per change whichever made it; with the store out of reach every replica refuses changes clearly and calls go on', async () => {
    const relay = await CuttingRelay.start(join(postgres().socketConfig().host as string, `.s.PGSQL.${postgres().port}`));
    try {
      const replicas = [await startReplica('a', relay), await startReplica('b', relay), await startReplica('c', relay)];
      const [a, b, c] = replicas;
      const start = await oneCatalog(replicas);
      await c.api('POST', '/api/v1/plugins', { path: writeProbePlugin(join(sandbox.root, 'pkg'), 'e2e.rep', ['add_tag']) });
      const copies = await eventually(
        async () => {
          const found = await copiesOf(a, 'e2e.rep');
          return found.length === 3 && found.every((copy) => copy.status === 'active') ? found : undefined;
        },
        5000,
        'every replica to run its copy',
      );
      expect(copies.map((copy) => copy.id).sort()).toHaveLength(3);
      expect((await oneCatalog(replicas)).revision).toBe(start.revision + 1);
      expect((await b.api<any>('POST', '/api/v1/plugins/e2e.rep/disable')).status).toBe(200);
      await eventually(() => (replicas.every((replica) => localPids(replica, 'e2e.rep').length === 0) ? true : undefined), 5000, 'every copy to stop');
      expect((await oneCatalog(replicas)).revision).toBe(start.revision + 2);
      expect((await a.api<any>('POST', '/api/v1/plugins/e2e.rep/enable')).body.status).toBe('active');
      await eventually(() => (replicas.every((replica) => localPids(replica, 'e2e.rep').length === 1) ? true : undefined), 5000, 'every copy to start');
      expect((await oneCatalog(replicas)).revision).toBe(start.revision + 3);
      const agents = await Promise.all(replicas.map((replica) => agentOn(replica, `task-${replica.name}`)));

      // The store goes out of reach: open connections cut, new ones refused.
      relay.cut();
      await relay.stop();
      for (const replica of replicas) {
        const refused = await replica.api<any>('POST', '/api/v1/plugins/e2e.rep/disable').catch((error: Error) => {
          throw new Error(
            `replica ${replica.name} did not answer (${error.message}); its log ends:\n${replica.backend.stderr().split('\n').slice(-12).join('\n')}`,
          );
        });
        expect(refused.status).toBe(503);
        expect(refused.body.error).toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining('changes are refused') });
      }
      for (const [index, agent] of agents.entries()) {
        expect(await agent.toolNames()).toContain(TOOL);
        expect(await agent.call(TOOL, { tag: `offline-${index}` })).toMatchObject({ structuredContent: { tag: `offline-${index}` } });
      }
    } finally {
      await relay.stop().catch(() => undefined);
    }
  });
});
