import { Client, type ClientConfig } from 'pg';

/** One statement on a connection of its own, as an operator's psql would run it; answers its rows. */
export async function runSql<T = Record<string, unknown>>(config: ClientConfig, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client(config);
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}
