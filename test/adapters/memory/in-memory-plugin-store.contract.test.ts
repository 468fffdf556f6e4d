import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { describeApprovalStoreContract } from '../../contracts/approval-requests.contract';
import { describeCatalogPolicyContract } from '../../contracts/catalog-policy.contract';
import { describeHostEntriesContract } from '../../contracts/host-entries.contract';
import { describePluginRecordsContract } from '../../contracts/plugin-records.contract';
import { describeSessionStoreContract } from '../../contracts/session-store.contract';
import type { StoreFactory } from '../../contracts/store-under-test';

const factory: StoreFactory = () => {
  const store = new InMemoryPluginStore();
  return { store, cleanup: () => store.close() };
};

const rows: Array<[string, StoreFactory]> = [['InMemoryPluginStore', factory]];
describePluginRecordsContract(rows);
describeSessionStoreContract(rows);
describeHostEntriesContract(rows);
describeCatalogPolicyContract(rows);
describeApprovalStoreContract(rows);
