import { UsageError } from './exit-codes';

/** Where `serve` keeps its store: the embedded SQLite file, or a PostgreSQL database shared by replicas. */
export type StoreChoice = { kind: 'sqlite' } | { kind: 'postgres'; url: string };

const SECRET_KEY = /^[0-9a-fA-F]{64}$/;

/**
 * `serve --store` (else TOOLPORT_STORE), checked before anything touches a store
 * (docs/operations.md §10): a PostgreSQL URL, and the admin token and secret key every replica must share, since
 * none of them can make its own.
 */
export function resolveStoreChoice(flag: unknown, env: NodeJS.ProcessEnv): StoreChoice {
  const [raw, name] = typeof flag === 'string' ? [flag, '--store'] : [env.TOOLPORT_STORE, 'TOOLPORT_STORE'];
  if (raw === undefined || raw === '') return { kind: 'sqlite' };
  if (!/^postgres(ql)?:\/\//.test(raw) || !URL.canParse(raw)) {
    // Never echo the value: it may hold a password.
    throw new UsageError(`${name}: expected a postgres:// or postgresql:// URL`);
  }
  if (!env.TOOLPORT_ADMIN_TOKEN) throw new UsageError(`${name} needs TOOLPORT_ADMIN_TOKEN: every replica of the store answers the same admin token`);
  if (!env.TOOLPORT_SECRET_KEY) throw new UsageError(`${name} needs TOOLPORT_SECRET_KEY: every replica of the store decrypts the same secrets`);
  if (!SECRET_KEY.test(env.TOOLPORT_SECRET_KEY)) throw new UsageError('TOOLPORT_SECRET_KEY: expected 64 hex digits');
  return { kind: 'postgres', url: raw };
}
