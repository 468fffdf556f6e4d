import { PrivatePostgres } from './private-postgres';

/**
 * One private PostgreSQL server for the calling test file: started before its first test,
 * stopped after its last, and the file fails if the server left any process behind.
 */
export function usePrivatePostgres(): () => PrivatePostgres {
  let server: PrivatePostgres | undefined;
  beforeAll(async () => {
    server = await PrivatePostgres.start();
  }, 60_000);
  afterAll(async () => {
    const report = await server?.stop();
    expect(report?.left ?? []).toEqual([]);
  }, 30_000);
  return () => {
    if (!server) throw new Error('the private PostgreSQL server is not running (did beforeAll fail?)');
    return server;
  };
}
