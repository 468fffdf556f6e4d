import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { describePluginStoreContract } from '../../contracts/plugin-store.contract';

describePluginStoreContract([
  [
    'InMemoryPluginStore',
    () => {
      const store = new InMemoryPluginStore();
      return { store, cleanup: () => store.close() };
    },
  ],
]);
