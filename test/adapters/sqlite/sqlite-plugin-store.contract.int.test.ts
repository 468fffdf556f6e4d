import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqlitePluginStore } from '../../../src/adapters/sqlite/sqlite-plugin-store';
import { describeApprovalStoreContract } from '../../contracts/approval-requests.contract';
import { describeCatalogPolicyContract } from '../../contracts/catalog-policy.contract';
import { describeHostEntriesContract } from '../../contracts/host-entries.contract';
import { describePluginRecordsContract } from '../../contracts/plugin-records.contract';
import { describeSessionStoreContract } from '../../contracts/session-store.contract';
import type { StoreFactory } from '../../contracts/store-under-test';

const factory: StoreFactory = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-sqlite-contract-'));
  const file = path.join(dir, 'toolport.db');
  const opened = [new SqlitePluginStore(file)];
  return {
    store: opened[0],
    async reopen() {
      await opened[opened.length - 1].close();
      opened.push(new SqlitePluginStore(file));
      return opened[opened.length - 1];
    },
    async cleanup() {
      for (const store of opened) await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
};

const rows: Array<[string, StoreFactory]> = [['SqlitePluginStore', factory]];
describePluginRecordsContract(rows);
describeSessionStoreContract(rows);
describeHostEntriesContract(rows);
describeCatalogPolicyContract(rows);
describeApprovalStoreContract(rows);
