import type { PluginStore } from '../../src/application/ports/plugin-store';
import type { PluginRecord } from '../../src/domain/plugin-record';
import { pluginRecordFixture } from '../support/fixtures';

/**
 * One store adapter under test: a fresh, empty store and how to dispose of it. One adapter
 * implements the three store ports (PluginRecords, SessionStore, HostEntries); each port's
 * contract suite exercises its own members and uses the records port only to set up.
 */
export interface StoreUnderTest {
  store: PluginStore;
  /** Disposes of the store; must tolerate a store the test already closed. */
  cleanup(): void | Promise<void>;
  /**
   * Optional: closes the store and opens another one on the same underlying resource, for
   * adapters whose data survives a restart (SQLite). The suites then check durability too.
   * cleanup() must then dispose of the reopened store as well.
   */
  reopen?(): Promise<PluginStore>;
}

export type StoreFactory = () => StoreUnderTest | Promise<StoreUnderTest>;

export const CATALOG = { generation: '000000000003-0badcafe', revision: 7, contentHash: 'a'.repeat(64) };
export const SEALED = { keyId: 'k1', data: 'opaque-ciphertext==' };

export function save(store: PluginStore, record: PluginRecord): Promise<void> {
  return store.transaction((tx) => tx.savePlugin(record));
}

export function nextSeq(store: PluginStore): Promise<number> {
  return store.transaction((tx) => tx.nextInstallSeq());
}

/** Saves a record for each id, so Host entries and configurations have a plugin to belong to. */
export async function installed(store: PluginStore, ...ids: string[]): Promise<void> {
  for (const id of ids) await save(store, pluginRecordFixture({ id, install_seq: await nextSeq(store) }));
}

/** A promise and the function that resolves it, to hold a transaction open. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** The subject of one test: a fresh store before each, disposed of after each. */
export function storeUnderEach(factory: StoreFactory): { subject(): StoreUnderTest } {
  let current: StoreUnderTest | undefined;
  beforeEach(async () => {
    current = await factory();
  });
  afterEach(async () => {
    await current?.cleanup();
  });
  return {
    subject: () => {
      if (!current) throw new Error('no store under test outside a test');
      return current;
    },
  };
}
