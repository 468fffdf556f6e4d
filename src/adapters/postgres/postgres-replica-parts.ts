import type { Logger } from '../../application/ports/logger';
import { PostgresPackageVault } from './postgres-package-vault';
import { PostgresPluginStore } from './postgres-plugin-store';
import { PostgresReplicaRoster } from './postgres-replica-roster';
import { PostgresStoreChanges } from './postgres-store-changes';

/**
 * A backend's view of a PostgreSQL store it shares with other replicas: the store, and on its
 * pool the roster and the package vault, with a change feed on a connection of its own.
 */
export async function openPostgresReplica(url: string, replicaId: string, logger: Logger) {
  const store = await PostgresPluginStore.open({ connection: url, replicaId, logger: logger.child({ component: 'store' }) });
  return {
    store,
    roster: new PostgresReplicaRoster(store.pool, replicaId),
    vault: new PostgresPackageVault(store.pool),
    changes: new PostgresStoreChanges({ connectionString: url }, replicaId, logger.child({ component: 'store-changes' })),
  };
}
