import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqlitePluginStore } from '../../../src/adapters/sqlite/sqlite-plugin-store';
import { SQLITE_SCHEMA_VERSION, migrateSqliteSchema } from '../../../src/adapters/sqlite/sqlite-migrations';
import { instanceOwner, workspaceOwner } from '../../../src/domain/host-entry-owner';
import type { PluginRecord } from '../../../src/domain/plugin-record';
import { manifestFixture, pluginRecordFixture, sessionRecordFixture } from '../../support/fixtures';

function save(store: SqlitePluginStore, record: PluginRecord): Promise<void> {
  return store.transaction((tx) => tx.savePlugin(record));
}

function seq(store: SqlitePluginStore): Promise<number> {
  return store.transaction((tx) => tx.nextInstallSeq());
}

describe('SqlitePluginStore', () => {
  let dir: string;
  let file: string;
  const open: SqlitePluginStore[] = [];

  function openStore(): SqlitePluginStore {
    const store = new SqlitePluginStore(file);
    open.push(store);
    return store;
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-sqlite-'));
    file = path.join(dir, 'toolport.db');
  });

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds every record, session and the boot counter as written after reopening the file', async () => {
    const first = openStore();
    const manifest = manifestFixture('acme.tools', '1.2.0', ['add_tag', 'list_tags'], {
      display_name: 'Acme',
      capabilities: { net: { hosts: ['example.com'] } },
    });
    const plugins = [
      pluginRecordFixture({ id: 'acme.tools', version: '1.2.0', manifest, install_seq: await seq(first) }),
      pluginRecordFixture({
        id: 'b.tools',
        status: 'error',
        enabled: false,
        last_error: 'exited with code 3',
        restart_count: 5,
        install_seq: await seq(first),
      }),
    ];
    for (const p of plugins) await save(first, p);
    const sessions = [
      sessionRecordFixture({
        session_id: 's1',
        created_at: '2026-01-01T00:00:01.000Z',
        last_linked_at: '2026-01-01T00:00:03.000Z',
        link_down_since: '2026-01-01T00:00:04.000Z',
        launched: true,
        agentctl_pid: 4242,
      }),
      sessionRecordFixture({ session_id: 's2', surface: 'office-task', status: 'stopped', created_at: '2026-01-01T00:00:02.000Z' }),
    ];
    for (const session of sessions) await first.saveSession(session);
    expect(await first.incrementBootCounter()).toBe(1);
    expect(await first.incrementBootCounter()).toBe(2);
    await first.close();

    const second = openStore();
    expect(await second.listPlugins()).toEqual(plugins);
    expect(await second.getPlugin('acme.tools')).toEqual(plugins[0]);
    expect(await second.listSessions()).toEqual(sessions);
    expect(await second.findSessionByTokenHash('hash-s1')).toEqual(sessions[0]);
    expect(await second.incrementBootCounter()).toBe(3);
    expect(await seq(second)).toBe(3);
  });

  it('stores the session token hash, and no other token', async () => {
    const store = openStore();
    await store.saveSession(sessionRecordFixture({ session_id: 's1', session_token_hash: 'h1' }));
    await store.close();
    const raw = new Database(file, { readonly: true });
    try {
      const columns = (raw.prepare('PRAGMA table_info(sessions)').all() as { name: string }[]).map((c) => c.name);
      expect(columns).toContain('session_token_hash');
      expect(columns.filter((c) => /token/.test(c)).sort()).toEqual(['session_token_hash']);
    } finally {
      raw.close();
    }
  });

  it('uses WAL journaling', () => {
    openStore();
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
  });

  it('migrates a file written with an older schema and keeps its records', async () => {
    const old = new Database(file);
    migrateSqliteSchema(old, 1);
    expect(old.pragma('user_version', { simple: true })).toBe(1);
    const record = pluginRecordFixture({ id: 'legacy.plugin', install_seq: 7 });
    old
      .prepare(
        `INSERT INTO plugins (id, version, status, enabled, manifest_json, install_dir, package_sha256, last_error, restart_count, install_seq, installed_at, updated_at)
       VALUES (?, ?, ?, 1, ?, ?, ?, NULL, 0, 7, ?, ?)`,
      )
      .run(
        record.id,
        record.version,
        record.status,
        JSON.stringify(record.manifest),
        '/data/plugins/legacy.plugin/1.0.0',
        record.package_sha256,
        record.installed_at,
        record.updated_at,
      );
    old.prepare("INSERT INTO counters (name, value) VALUES ('boot', 41)").run();
    old.close();

    const store = openStore();
    expect(await store.getPlugin('legacy.plugin')).toEqual(record);
    expect(await store.incrementBootCounter()).toBe(42);
    await store.saveSession(sessionRecordFixture({ session_id: 'new' }));
    expect((await store.getSession('new'))?.session_id).toBe('new');
    expect(await seq(store)).toBe(8);
    expect(await store.transaction((tx) => tx.catalogState())).toBeUndefined();
    await store.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    raw.close();
  });

  it('keeps the state and secrets a schema-10 file holds as the instance entries of their plugin', async () => {
    const old = new Database(file);
    migrateSqliteSchema(old, 10);
    old.prepare("INSERT INTO plugin_state (plugin_id, key, value_json) VALUES ('acme.a', 'cursor', '{\"page\":2}')").run();
    old.prepare("INSERT INTO plugin_secrets (plugin_id, key, key_id, data) VALUES ('acme.a', 'oauth', 'k1', 'sealed')").run();
    old.close();

    const store = openStore();
    expect(await store.getState(instanceOwner('acme.a'), 'cursor')).toBe('{"page":2}');
    expect(await store.getSecret(instanceOwner('acme.a'), 'oauth')).toEqual({ keyId: 'k1', data: 'sealed' });
    expect(await store.getState(workspaceOwner('acme.a', ''), 'cursor')).toBeUndefined();
    expect(await store.listWorkspaceConfigs('acme.a')).toEqual([]);
  });

  it('refuses a file written by a newer schema instead of guessing', () => {
    const future = new Database(file);
    future.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    future.close();
    expect(() => openStore()).toThrow(/newer than this Toolport/);
  });

  it('replaces a record in place and keeps session creation order when a session is updated', async () => {
    const store = openStore();
    await store.saveSession(sessionRecordFixture({ session_id: 'a', created_at: '2026-01-01T00:00:00.000Z' }));
    await store.saveSession(sessionRecordFixture({ session_id: 'b', created_at: '2026-01-01T00:00:00.000Z' }));
    await store.saveSession(sessionRecordFixture({ session_id: 'a', created_at: '2026-01-01T00:00:00.000Z', status: 'dead' }));
    expect((await store.listSessions()).map((s) => [s.session_id, s.status])).toEqual([
      ['a', 'dead'],
      ['b', 'live'],
    ]);
    await save(store, pluginRecordFixture({ id: 'p', status: 'active' }));
    await save(store, pluginRecordFixture({ id: 'p', status: 'disabled', enabled: false }));
    expect(await store.listPlugins()).toHaveLength(1);
    expect((await store.getPlugin('p'))?.status).toBe('disabled');
    await store.transaction(async (tx) => {
      await tx.deletePlugin('p');
      await tx.deletePlugin('p');
    });
    expect(await store.getPlugin('p')).toBeUndefined();
  });

  it('hands out install sequence numbers above every stored one', async () => {
    const store = openStore();
    await save(store, pluginRecordFixture({ id: 'p', install_seq: 10 }));
    expect(await seq(store)).toBe(11);
    expect(await seq(store)).toBe(12);
  });

  it('rejects use after close', async () => {
    const store = openStore();
    await store.close();
    await expect(store.listPlugins()).rejects.toThrow();
  });
});
