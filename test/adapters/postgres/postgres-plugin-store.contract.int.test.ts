import type { PluginStore } from '../../../src/application/ports/plugin-store';
import { PostgresPluginStore } from '../../../src/adapters/postgres/postgres-plugin-store';
import { describePluginStoreContract } from '../../contracts/plugin-store.contract';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';

const postgres = usePrivatePostgres();

describePluginStoreContract([
  [
    'PostgresPluginStore',
    async () => {
      const server = postgres();
      const database = await server.createDatabase('contract');
      const open = () => PostgresPluginStore.open({ connection: server.socketConfig(database), poolSize: 4 });
      const opened: PluginStore[] = [await open()];
      return {
        store: opened[0],
        async reopen() {
          await opened[opened.length - 1].close();
          opened.push(await open());
          return opened[opened.length - 1];
        },
        async cleanup() {
          for (const store of opened) await store.close();
          await server.dropDatabase(database);
        },
      };
    },
  ],
]);
