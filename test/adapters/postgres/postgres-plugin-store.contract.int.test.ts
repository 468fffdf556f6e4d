import type { PluginStore } from '../../../src/application/ports/plugin-store';
import { PostgresPluginStore } from '../../../src/adapters/postgres/postgres-plugin-store';
import { describeApprovalStoreContract } from '../../contracts/approval-requests.contract';
import { describeCatalogPolicyContract } from '../../contracts/catalog-policy.contract';
import { describeHostEntriesContract } from '../../contracts/host-entries.contract';
import { describePluginRecordsContract } from '../../contracts/plugin-records.contract';
import { describeSessionStoreContract } from '../../contracts/session-store.contract';
import type { StoreFactory } from '../../contracts/store-under-test';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';

const postgres = usePrivatePostgres();

const factory: StoreFactory = async () => {
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
};

const rows: Array<[string, StoreFactory]> = [['PostgresPluginStore', factory]];
describePluginRecordsContract(rows);
describeSessionStoreContract(rows);
describeHostEntriesContract(rows);
describeCatalogPolicyContract(rows);
describeApprovalStoreContract(rows);
