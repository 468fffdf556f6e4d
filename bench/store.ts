/**
 * The store side by side: the test kit's private PostgreSQL (start and stop, with initdb and
 * from a copied cluster) and the same store operations on SQLite and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresPluginStore } from '../src/adapters/postgres/postgres-plugin-store';
import { SqlitePluginStore } from '../src/adapters/sqlite/sqlite-plugin-store';
import type { PluginStore } from '../src/application/ports/plugin-store';
import { pluginRecordFixture } from '../test/support/fixtures';
import { PrivatePostgres } from '../test/support/postgres/private-postgres';
import { TEMPLATE_ENV, templatePathForRun } from '../test/support/postgres/postgres-template';
import { median, timed } from './stats';

export interface ServerFigures {
  startMs: number;
  stopMs: number;
}

export interface StoreOpFigures {
  transactionP50: number;
  getPluginP50: number;
  listPluginsP50: number;
}

export interface StoreFigures {
  initdb: ServerFigures;
  copied: ServerFigures;
  sqlite: StoreOpFigures;
  postgres: StoreOpFigures;
}

async function serverRuns(runs: number): Promise<ServerFigures> {
  const starts: number[] = [];
  const stops: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const server = await PrivatePostgres.start();
    starts.push(server.startMs);
    const report = await server.stop();
    if (report.left.length > 0) throw new Error(`the private PostgreSQL left ${report.left.length} processes`);
    stops.push(report.stopMs);
  }
  return { startMs: median(starts), stopMs: median(stops) };
}

/** The same operations on each store, in alternating blocks so both see the same machine. */
async function storeOps(stores: Record<'sqlite' | 'postgres', PluginStore>, rounds: number): Promise<Record<'sqlite' | 'postgres', StoreOpFigures>> {
  const samples = {
    sqlite: { tx: [] as number[], get: [] as number[], list: [] as number[] },
    postgres: { tx: [] as number[], get: [] as number[], list: [] as number[] },
  };
  for (const store of Object.values(stores)) {
    for (let i = 0; i < 20; i += 1) await store.transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: `p${i}`, install_seq: i + 1 })));
  }
  for (let block = 0; block < rounds; block += 1) {
    for (const [name, store] of Object.entries(stores) as Array<['sqlite' | 'postgres', PluginStore]>) {
      for (let i = 0; i < 20; i += 1) {
        samples[name].tx.push(
          await timed(() =>
            store.transaction(async (tx) => {
              const record = (await tx.getPlugin('p0'))!;
              await tx.savePlugin({ ...record, restart_count: record.restart_count + 1 });
              await tx.saveCatalogState({ generation: '000000000001-00000000', revision: block * 20 + i, contentHash: 'h' });
            }),
          ),
        );
        samples[name].get.push(await timed(() => store.getPlugin('p7')));
        samples[name].list.push(await timed(() => store.listPlugins()));
      }
    }
  }
  const figures = (s: { tx: number[]; get: number[]; list: number[] }) => ({
    transactionP50: median(s.tx),
    getPluginP50: median(s.get),
    listPluginsP50: median(s.list),
  });
  return { sqlite: figures(samples.sqlite), postgres: figures(samples.postgres) };
}

export async function measureStore(): Promise<StoreFigures> {
  const initdb = await serverRuns(3);
  // As a jest run does: one initialised cluster, copied for each server.
  const template = templatePathForRun();
  process.env[TEMPLATE_ENV] = template;
  const folder = mkdtempSync(join(tmpdir(), 'toolport-bench-store-'));
  try {
    const copied = await serverRuns(5);
    const server = await PrivatePostgres.start();
    const stores = {
      sqlite: new SqlitePluginStore(join(folder, 'toolport.db')),
      postgres: await PostgresPluginStore.open({ connection: server.socketConfig(await server.createDatabase('bench')) }),
    };
    try {
      return { initdb, copied, ...(await storeOps(stores, 10)) };
    } finally {
      for (const store of Object.values(stores)) await store.close();
      await server.stop();
    }
  } finally {
    delete process.env[TEMPLATE_ENV];
    rmSync(template, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  }
}
