import { resolveStoreChoice } from '../../../src/adapters/cli/store-option';

const SHARED = { TOOLPORT_ADMIN_TOKEN: 'admin', TOOLPORT_SECRET_KEY: 'a1'.repeat(32) };

describe('serve --store (resolveStoreChoice)', () => {
  it('keeps the embedded SQLite store when neither --store nor TOOLPORT_STORE is given', () => {
    expect(resolveStoreChoice(undefined, {})).toEqual({ kind: 'sqlite' });
    expect(resolveStoreChoice(undefined, { TOOLPORT_STORE: '' })).toEqual({ kind: 'sqlite' });
  });

  it('takes the flag over TOOLPORT_STORE, postgres:// and postgresql:// alike', () => {
    const env = { ...SHARED, TOOLPORT_STORE: 'postgres://env@db/one' };
    expect(resolveStoreChoice('postgresql://flag@db/two', env)).toEqual({ kind: 'postgres', url: 'postgresql://flag@db/two' });
    expect(resolveStoreChoice(undefined, env)).toEqual({ kind: 'postgres', url: 'postgres://env@db/one' });
  });

  it('names the missing shared admin token or secret key, and where the store came from', () => {
    expect(() => resolveStoreChoice('postgres://db/x', { TOOLPORT_SECRET_KEY: SHARED.TOOLPORT_SECRET_KEY })).toThrow('--store needs TOOLPORT_ADMIN_TOKEN');
    expect(() => resolveStoreChoice(undefined, { TOOLPORT_STORE: 'postgres://db/x', TOOLPORT_ADMIN_TOKEN: 'a' })).toThrow(
      'TOOLPORT_STORE needs TOOLPORT_SECRET_KEY',
    );
    expect(() => resolveStoreChoice('postgres://db/x', { ...SHARED, TOOLPORT_SECRET_KEY: 'zz'.repeat(32) })).toThrow(
      'TOOLPORT_SECRET_KEY: expected 64 hex digits',
    );
  });

  it('refuses what is not a PostgreSQL URL without echoing it (it may hold a password)', () => {
    for (const bad of ['mysql://u:hunter2@db/x', 'hunter2', 'postgres://[bad']) {
      let message = '';
      try {
        resolveStoreChoice(bad, SHARED);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe('--store: expected a postgres:// or postgresql:// URL');
    }
  });
});
