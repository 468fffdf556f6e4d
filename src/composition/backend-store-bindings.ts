import { join } from 'node:path';
import type { Container } from 'inversify';
import { replicaIdFor } from '../adapters/shared/replica-id-file';
import { SqlitePluginStore } from '../adapters/sqlite/sqlite-plugin-store';
import type { PluginStore } from '../application/ports/plugin-store';
import { STORE } from './backend-tokens';
import type { Disposals } from './disposals';
import type { ReplicaParts } from './plugin-core-bindings';
import type { ServeContext } from './serve-options';

/** The store `serve` runs on, and on a shared one what this replica joins the others with. */
export interface BackendStore {
  bind(c: Container): void;
  replicas?: ReplicaParts;
}

/**
 * The embedded SQLite file by default (opened when first resolved), or a PostgreSQL store
 * shared with other backends (docs/operations.md §10), opened here. Either is closed last
 * of the adapters the core uses, once nothing can call it any more.
 */
export async function openBackendStore({ options, dataDir, logger }: ServeContext, disposals: Disposals): Promise<BackendStore> {
  if (options.store?.kind === 'postgres') {
    // Loaded only here: the pg driver costs about 40 ms of start-up the SQLite default need not pay.
    const postgres = await import('../adapters/postgres/postgres-replica-parts');
    const { store, ...replicas } = await postgres.openPostgresReplica(options.store.url, replicaIdFor(dataDir), logger);
    disposals.add('store', () => store.close());
    return { bind: (c) => c.bind<PluginStore>(STORE).toConstantValue(store), replicas };
  }
  let opened: SqlitePluginStore | undefined;
  disposals.add('store', () => opened?.close());
  return { bind: (c) => c.bind<PluginStore>(STORE).toResolvedValue(() => (opened = new SqlitePluginStore(join(dataDir, 'toolport.db')))) };
}
