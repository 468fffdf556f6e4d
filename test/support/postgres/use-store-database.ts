import type { ClientConfig } from 'pg';
import { PostgresPluginStore, type PostgresStoreOptions } from '../../../src/adapters/postgres/postgres-plugin-store';
import type { PrivatePostgres } from './private-postgres';

export interface StoreDatabase {
  /** This test's database. */
  name(): string;
  /** Its connection settings over the server's unix socket. */
  config(): ClientConfig;
  /** A store on it (a backend), closed after the test. */
  open(options?: Omit<PostgresStoreOptions, 'connection'>): Promise<PostgresPluginStore>;
}

/** A fresh database for each test on the file's private server, dropped after it with every store opened on it. */
export function useStoreDatabase(server: () => PrivatePostgres, prefix: string): StoreDatabase {
  let database: string | undefined;
  const opened: PostgresPluginStore[] = [];
  beforeEach(async () => {
    database = await server().createDatabase(prefix);
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    if (database) await server().dropDatabase(database);
  });
  const name = () => {
    if (!database) throw new Error('no database outside a test');
    return database;
  };
  return {
    name,
    config: () => server().socketConfig(name()),
    async open(options = {}) {
      const store = await PostgresPluginStore.open({ poolSize: 3, ...options, connection: server().socketConfig(name()) });
      opened.push(store);
      return store;
    },
  };
}
