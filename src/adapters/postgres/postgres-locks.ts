import type { ClientBase } from 'pg';

/**
 * Transaction-level advisory locks, per database. Every backend on the database takes the
 * catalog lock first in each store transaction, so their transactions run one at a time; the
 * migration lock lets backends starting together apply each schema step once; a plugin's
 * entries lock makes counting its Host keys and writing one a single step on every backend.
 */
const NAMESPACE = 0x54_6f_6f_6c; // "Tool"
const ENTRIES_NAMESPACE = 0x48_6f_73_74; // "Host": its keys are hashes of plugin ids
export const CATALOG_LOCK = 1;
export const MIGRATION_LOCK = 2;

/** One of the fixed locks, or the one of a plugin's Host entries. */
export type AdvisoryLock = number | { entriesOf: string };

function lockStatement(lock: AdvisoryLock): [string, unknown[]] {
  if (typeof lock === 'number') return ['SELECT pg_advisory_xact_lock($1, $2)', [NAMESPACE, lock]];
  return ['SELECT pg_advisory_xact_lock($1, hashtext($2))', [ENTRIES_NAMESPACE, lock.entriesOf]];
}

/**
 * Runs `work` on `client` between BEGIN and COMMIT with the advisory lock `lock` taken first,
 * rolling back when it rejects. Read committed: each statement after the lock sees every
 * transaction committed before the lock was granted.
 */
export async function inTransaction<T>(client: ClientBase, lock: AdvisoryLock, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
  try {
    await client.query(...lockStatement(lock));
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A broken connection cannot roll back; the server does when it sees the connection go.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
