import { join } from 'node:path';
import { Client } from 'pg';
import { PostgresPluginStore } from '../../../src/adapters/postgres/postgres-plugin-store';
import { migratePostgresSchema, POSTGRES_SCHEMA_VERSION } from '../../../src/adapters/postgres/postgres-migrations';
import { StoreOpenError } from '../../../src/adapters/postgres/store-open-error';
import { CapturingLogger } from '../../support/capturing-logger';
import { pluginRecordFixture, sessionRecordFixture } from '../../support/fixtures';
import { probablyFreePort } from '../../support/postgres/free-port';
import { runSql } from '../../support/postgres/run-sql';
import { CuttingRelay } from '../../support/postgres/cutting-relay';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useStoreDatabase } from '../../support/postgres/use-store-database';

const postgres = usePrivatePostgres();

describe('PostgresPluginStore', () => {
  const db = useStoreDatabase(postgres, 'store');
  const openStore = (logger?: CapturingLogger) => db.open({ logger });
  const sql = <T = Record<string, unknown>>(text: string, values: unknown[] = []) => runSql<T>(db.config(), text, values);

  it('migrates a database written with an older schema, keeping its records, and says the latest version', async () => {
    // A client of its own, ended (and its socket closed) before the store opens.
    const client = new Client(db.config());
    const record = pluginRecordFixture({ id: 'legacy.plugin', install_seq: 7 });
    await client.connect();
    try {
      expect(await migratePostgresSchema(client, 1)).toBe(1);
      await client.query(
        `INSERT INTO plugins (id, version, status, enabled, manifest, package_sha256, last_error, restart_count, install_seq, installed_at, updated_at)
         VALUES ($1, $2, $3, true, $4, $5, NULL, 0, 7, $6, $7)`,
        [record.id, record.version, record.status, JSON.stringify(record.manifest), record.package_sha256, record.installed_at, record.updated_at],
      );
      await client.query("INSERT INTO counters (name, value) VALUES ('boot', 41)");
    } finally {
      await client.end();
    }

    const store = await openStore();
    expect(await store.getPlugin('legacy.plugin')).toEqual(record);
    expect(await store.incrementBootCounter()).toBe(42);
    expect(await store.transaction((tx) => tx.nextInstallSeq())).toBe(8);
    expect(await sql('SELECT version FROM toolport_schema')).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    expect(await sql("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'packages'")).toEqual([{ n: 1 }]);
  });

  it('refuses a database written by a newer schema instead of guessing, and leaves it untouched', async () => {
    await openStore();
    await sql('UPDATE toolport_schema SET version = $1', [POSTGRES_SCHEMA_VERSION + 1]);
    const failure = await PostgresPluginStore.open({ connection: db.config() }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreOpenError);
    expect((failure as Error).message).toMatch(
      new RegExp(`schema version ${POSTGRES_SCHEMA_VERSION + 1}, newer than this Toolport's ${POSTGRES_SCHEMA_VERSION}`),
    );
    expect(await sql('SELECT version FROM toolport_schema')).toEqual([{ version: POSTGRES_SCHEMA_VERSION + 1 }]);
  });

  it('applies each schema step once when several backends open a new database at the same moment', async () => {
    const stores = await Promise.all([openStore(), openStore(), openStore()]);
    expect(await sql('SELECT version FROM toolport_schema')).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    await stores[0].saveSession(sessionRecordFixture({ session_id: 's1' }));
    expect((await stores[2].getSession('s1'))?.session_id).toBe('s1');
  });

  it('stores the session token hash and no other token', async () => {
    const store = await openStore();
    await store.saveSession(sessionRecordFixture({ session_id: 's1', session_token_hash: 'h1' }));
    const columns = (await sql<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_name = 'sessions'")).map(
      (c) => c.column_name,
    );
    expect(columns.filter((c) => /token/.test(c))).toEqual(['session_token_hash']);
  });

  describe('when its pooled connections are cut (a failover, a restarted proxy)', () => {
    let relay: CuttingRelay;
    let store: PostgresPluginStore;
    const logger = new CapturingLogger();

    beforeEach(async () => {
      relay = await CuttingRelay.start(join(postgres().root, `.s.PGSQL.${postgres().port}`));
      const connection = { host: '127.0.0.1', port: relay.port, user: 'postgres', password: postgres().password, database: db.name() };
      store = await PostgresPluginStore.open({ connection, poolSize: 3, logger });
      // Three connections in the pool, each to be found dead only when next used.
      await Promise.all([store.listPlugins(), store.listSessions(), store.getPlugin('x')]);
      relay.cut();
    });

    afterEach(async () => {
      await store.close();
      await relay.stop();
    });

    it('runs a read or a transaction again on a fresh connection when the first statement finds its connection dead', async () => {
      await store.transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: 'after', install_seq: 1 })));
      const [listed, sessions] = await Promise.all([store.listPlugins(), store.listSessions(), store.getPlugin('after')]);
      expect(listed.map((r) => r.id)).toEqual(['after']);
      expect(sessions).toEqual([]);
    });

    it('never runs a transaction again once its work began: it rejects and nothing of it is kept', async () => {
      await store.transaction((tx) => tx.listPlugins());
      const failing = store.transaction(async (tx) => {
        await tx.savePlugin(pluginRecordFixture({ id: 'half', install_seq: 1 }));
        relay.cut();
        await tx.savePlugin(pluginRecordFixture({ id: 'other', install_seq: 2 }));
      });
      await expect(failing).rejects.toThrow(/Connection terminated/);
      expect(await store.listPlugins()).toEqual([]);
    });
  });

  describe('when it cannot open the store', () => {
    it('names an unreachable server in one line, without the password in the URL', async () => {
      const port = await probablyFreePort();
      const failure = (await PostgresPluginStore.open({ connection: `postgres://toolport:s3cret-pw@127.0.0.1:${port}/toolport` }).catch(
        (e: unknown) => e,
      )) as Error;
      expect(failure).toBeInstanceOf(StoreOpenError);
      expect(failure.message).toBe(`cannot open postgres://toolport@127.0.0.1:${port}/toolport: connect ECONNREFUSED 127.0.0.1:${port}`);
    });

    it('says the login was refused, never echoing the wrong password', async () => {
      const url = `postgres://postgres:not-the-password@127.0.0.1:${postgres().port}/postgres`;
      const failure = (await PostgresPluginStore.open({ connection: url }).catch((e: unknown) => e)) as Error;
      expect(failure.message).toBe(`cannot open postgres://postgres@127.0.0.1:${postgres().port}/postgres: password authentication failed for user "postgres"`);
    });

    it('says the database does not exist', async () => {
      const url = `postgres://postgres:${postgres().password}@127.0.0.1:${postgres().port}/no_such_db`;
      const failure = (await PostgresPluginStore.open({ connection: url }).catch((e: unknown) => e)) as Error;
      expect(failure.message).toMatch(/: database "no_such_db" does not exist$/);
      expect(failure.message).not.toContain(postgres().password);
    });
  });
});
