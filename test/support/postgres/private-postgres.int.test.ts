import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { processesMentioning } from '../processes/process-table';
import { probablyFreePort } from './free-port';
import { PrivatePostgres } from './private-postgres';
import { runSql as query } from './run-sql';

function listen(port: number): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

describe('PrivatePostgres (the test kit’s own PostgreSQL server)', () => {
  it('serves the unix socket without a password and TCP only with it, then stops leaving no process or folder', async () => {
    const server = await PrivatePostgres.start();
    let stopped = false;
    try {
      expect(await query(server.socketConfig(), 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      const tcp = { host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres' };
      expect(await query({ ...tcp, password: server.password }, "SELECT current_setting('fsync') AS fsync")).toEqual([{ fsync: 'off' }]);
      await expect(query({ ...tcp, password: 'wrong' }, 'SELECT 1')).rejects.toThrow(/password authentication failed/);
      expect(processesMentioning(server.root).length).toBeGreaterThan(0);

      const report = await server.stop();
      stopped = true;
      expect(report.left).toEqual([]);
      expect(existsSync(server.root)).toBe(false);
      await expect(query(server.socketConfig(), 'SELECT 1')).rejects.toThrow();
    } finally {
      if (!stopped) await server.stop();
    }
  }, 30_000);

  it('gives each test a database of its own', async () => {
    const server = await PrivatePostgres.start();
    try {
      const [a, b] = [await server.createDatabase('t'), await server.createDatabase('t')];
      expect(a).not.toBe(b);
      await query(server.socketConfig(a), 'CREATE TABLE only_in_a (x int)');
      expect(await query(server.socketConfig(b), "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_a'")).toEqual([{ n: 0 }]);
      await server.dropDatabase(a);
      await expect(query(server.socketConfig(a), 'SELECT 1')).rejects.toThrow(/does not exist/);
    } finally {
      expect((await server.stop()).left).toEqual([]);
    }
  }, 30_000);

  it('picks another port when the one it chose is taken by the time the server binds it', async () => {
    const taken = await probablyFreePort();
    const squatter = await listen(taken);
    const offered: number[] = [];
    const server = await PrivatePostgres.start(async () => {
      const port = offered.length === 0 ? taken : await probablyFreePort();
      offered.push(port);
      return port;
    }).finally(() => squatter.close());
    try {
      expect(offered.length).toBe(2);
      expect(server.port).toBe(offered[1]);
      expect(await query(server.socketConfig(), 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      expect((await server.stop()).left).toEqual([]);
    }
  }, 30_000);
});
