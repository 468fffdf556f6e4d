import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { processesMentioning } from '../../support/processes/process-table';
import { runToolport } from '../../support/processes/run-toolport';
import { probablyFreePort } from '../../support/postgres/free-port';
import { runSql } from '../../support/postgres/run-sql';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';

jest.setTimeout(60_000);

const postgres = usePrivatePostgres();
const ADMIN_TOKEN = 'e2e-postgres-admin-token';
const SECRET_KEY = '5e'.repeat(32);

const rows = (database: string, sql: string) => runSql(postgres().socketConfig(database), sql);

describe('toolport serve --store postgres://… (docs/operations.md §10)', () => {
  let world: BackendWorld;
  let database: string;

  beforeEach(async () => {
    database = await postgres().createDatabase('e2e');
    world = new BackendWorld(['--store', postgres().url(database), '--plugin-start-timeout-ms', '10000'], { prefix: 'toolport-e2e-pg-' });
  });

  afterEach(async () => {
    expect(await world.teardown()).toEqual([]);
    await postgres().dropDatabase(database);
  }, 30_000);

  /** The shared admin token and key, and the password in a pgpass file: never on a command line or in the environment. */
  function storeEnv(): NodeJS.ProcessEnv {
    return { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: SECRET_KEY, PGPASSFILE: postgres().writePgpass(world.root) };
  }

  it('installs a plugin, serves a call through an agentctl, restarts and still has it, all kept in PostgreSQL', async () => {
    const first = await world.start({ env: storeEnv() });
    const installed = await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.pg', ['add_tag']));
    expect(installed.status).toBe('active');
    const agent = await world.agent(await world.session('kanban-task'));
    expect(await agent.call('kandev_e2e_pg_add_tag', { tag: 'before' })).toMatchObject({ structuredContent: { tag: 'before' } });
    const generation = (await world.api('GET', '/api/v1/catalog')).body.generation as string;

    // The records are in the database, and the data dir holds no SQLite store.
    expect(await rows(database, 'SELECT id, status FROM plugins')).toEqual([{ id: 'e2e.pg', status: 'active' }]);
    expect(await rows(database, 'SELECT count(*)::int AS n FROM sessions')).toEqual([{ n: 1 }]);
    expect(existsSync(join(world.dataDir, 'toolport.db'))).toBe(false);
    expect(processesMentioning(postgres().password)).toEqual([]);

    await world.closeAgents();
    expect(await first.stop('SIGTERM')).toBe(0);
    await world.start({ env: storeEnv() });
    const { replicas, ...plugin } = (await world.api('GET', '/api/v1/plugins/e2e.pg')).body;
    // The same record, served by the restarted backend's own process (the install answer named the first one's).
    const { replicas: installedOn, ...record } = installed;
    expect(installedOn).toEqual([expect.objectContaining({ status: 'active', pid: installed.pid })]);
    expect(plugin).toEqual({ ...record, pid: plugin.pid, updated_at: plugin.updated_at });
    expect(plugin.pid).not.toBe(installed.pid);
    // The one live replica (this data dir's, kept across the restart) runs its copy.
    expect(replicas).toEqual([{ id: readFileSync(join(world.dataDir, 'replica-id'), 'utf8').trim(), status: 'active', pid: expect.any(Number) }]);
    const next = (await world.api('GET', '/api/v1/catalog')).body.generation as string;
    expect(Number(next.slice(0, 12))).toBe(Number(generation.slice(0, 12)) + 1);
    const again = await world.agent(await world.session('kanban-task', 'task-after-restart'));
    expect(await again.call('kandev_e2e_pg_add_tag', { tag: 'after' })).toMatchObject({ structuredContent: { tag: 'after' } });

    for (const backend of world.backends) expect(backend.stderr()).not.toContain(postgres().password);
  });

  it('refuses --store without the shared admin token or secret key: exit 2 naming the missing one, the store untouched', async () => {
    const url = postgres().url(database);
    const serve = (args: string[], env: NodeJS.ProcessEnv) =>
      runToolport(['serve', '--data-dir', join(world.root, 'data'), '--port', '0', ...args], {
        env: { PGPASSFILE: postgres().writePgpass(world.root), ...env },
      });

    const noToken = await serve(['--store', url], { TOOLPORT_SECRET_KEY: SECRET_KEY });
    expect(noToken).toMatchObject({ code: 2, stderr: expect.stringContaining('--store needs TOOLPORT_ADMIN_TOKEN') });
    const noKey = await serve([], { TOOLPORT_STORE: url, TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(noKey).toMatchObject({ code: 2, stderr: expect.stringContaining('TOOLPORT_STORE needs TOOLPORT_SECRET_KEY') });
    const badKey = await serve(['--store', url], { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: 'short' });
    expect(badKey).toMatchObject({ code: 2, stderr: expect.stringContaining('TOOLPORT_SECRET_KEY: expected 64 hex digits') });
    const notPostgres = await serve(['--store', 'mysql://root:pw@127.0.0.1/x'], { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: SECRET_KEY });
    expect(notPostgres).toMatchObject({ code: 2, stderr: 'toolport: --store: expected a postgres:// or postgresql:// URL\n' });

    expect(await rows(database, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).toEqual([{ n: 0 }]);
  });

  it('exits 1 with one line naming the store (never its password) when it cannot open it', async () => {
    const serve = (url: string) =>
      runToolport(['serve', '--data-dir', join(world.root, 'data'), '--port', '0', '--store', url], {
        env: { TOOLPORT_ADMIN_TOKEN: ADMIN_TOKEN, TOOLPORT_SECRET_KEY: SECRET_KEY },
      });
    const port = await probablyFreePort();
    const unreachable = await serve(`postgres://toolport:pw-in-url@127.0.0.1:${port}/toolport`);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(`toolport serve: cannot open postgres://toolport@127.0.0.1:${port}/toolport: connect ECONNREFUSED 127.0.0.1:${port}\n`);

    const refused = await serve(`postgres://postgres:wrong-password@127.0.0.1:${postgres().port}/${database}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `toolport serve: cannot open postgres://postgres@127.0.0.1:${postgres().port}/${database}: password authentication failed for user "postgres"\n`,
    );
    expect(existsSync(join(world.root, 'data', 'backend.json'))).toBe(false);
  });
});
