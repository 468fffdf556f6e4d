import { join } from 'node:path';
import { adminApi, type AdminApi } from '../clients/admin-api';
import type { RunningBackend } from '../processes/backend-process';
import { ProcessSandbox } from '../processes/process-sandbox';
import type { PrivatePostgres } from './private-postgres';

/** One replica: a `toolport serve --store postgres://…` with a data dir of its own. */
export interface StartedReplica {
  backend: RunningBackend;
  api: AdminApi;
  dataDir: string;
}

export interface Replicas {
  /** This test's process sandbox (its root holds every replica's data dir). */
  readonly sandbox: ProcessSandbox;
  /** Starts replica `name` on this test's database, with the admin token and secret key they all share. */
  start(name: string): Promise<StartedReplica>;
}

/**
 * Replicas of one backend on a private PostgreSQL server (docs/operations.md §10), for the tests
 * of a `describe`: each test gets a fresh database `name` and process sandbox, and after it the
 * sandbox must have left no process behind and the database is dropped. `args` are added to
 * every replica's `serve`.
 */
export function useReplicas(postgres: () => PrivatePostgres, name: string, args: string[] = []): Replicas {
  let sandbox: ProcessSandbox | undefined;
  let database = '';
  beforeEach(async () => {
    database = await postgres().createDatabase(name);
    sandbox = new ProcessSandbox(`toolport-e2e-replicas-${name}-`);
  });
  afterEach(async () => {
    expect(await sandbox?.teardown()).toEqual([]);
    await postgres().dropDatabase(database);
  }, 30_000);
  const current = (): ProcessSandbox => {
    if (!sandbox) throw new Error('no replica sandbox outside a test (did beforeEach fail?)');
    return sandbox;
  };
  return {
    get sandbox() {
      return current();
    },
    async start(replica: string): Promise<StartedReplica> {
      const box = current();
      const env = {
        TOOLPORT_ADMIN_TOKEN: `e2e-replicas-${name}-admin-token`,
        TOOLPORT_SECRET_KEY: '3e'.repeat(32),
        PGPASSFILE: postgres().writePgpass(box.root),
      };
      const dataDir = join(box.root, replica);
      const backend = await box.startBackend({ dataDir, env, args: ['--store', postgres().url(database), ...args] });
      return { backend, api: adminApi(backend.url, backend.token), dataDir };
    },
  };
}
