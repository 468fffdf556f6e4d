import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientConfig } from 'pg';
import { killMentioning, waitForNoProcesses } from '../processes/process-sweep';
import type { ProcessEntry } from '../processes/process-table';
import { POSTGRES_BIN, postgresAccount, type PostgresAccount } from './postgres-binaries';
import { newCluster } from './postgres-template';
import { probablyFreePort } from './free-port';
import { runSql } from './run-sql';

const READY = /database system is ready to accept connections/;
const PORT_TAKEN = /could not bind|Address already in use|could not create any TCP\/IP sockets|lock file .* already exists/;
// A test server needs no durability: nothing here survives a crash of the machine anyway.
const SERVER_SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'shared_buffers=32MB', 'max_connections=200'];

/** What `stop()` measured and found. */
export interface StopReport {
  stopMs: number;
  /** Processes of this server still there after the stop (a test expects none). */
  left: ProcessEntry[];
}

/**
 * A PostgreSQL server of its own for a test file: a temporary folder owned by `postgres`
 * holding the cluster and the unix socket, TCP on 127.0.0.1 at a free port. Unix socket
 * connections are trusted; TCP ones need the superuser's password.
 */
export class PrivatePostgres {
  private stopped: Promise<StopReport> | undefined;
  private databases = 0;

  private constructor(
    /** The folder holding everything: its path marks every process of this server. */
    readonly root: string,
    readonly port: number,
    readonly password: string,
    /** Spawn → ready to accept connections, ms (the cluster copy or initdb included). */
    readonly startMs: number,
    private readonly server: ChildProcess,
    private readonly exited: Promise<void>,
  ) {}

  /**
   * Makes a cluster and starts it; a port somebody took in between is replaced by another.
   * `choosePort` is for a test of that retry; by default a port that was just free.
   */
  static async start(choosePort: () => Promise<number> = probablyFreePort): Promise<PrivatePostgres> {
    const began = performance.now();
    const account = postgresAccount();
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-pg-')));
    try {
      chownSync(root, account.uid, account.gid);
      const cluster = await newCluster(root, account);
      for (let attempt = 1; ; attempt += 1) {
        const port = await choosePort();
        const started = await startServer(root, cluster.dataDir, port, account);
        if ('server' in started) return new PrivatePostgres(root, port, cluster.password, performance.now() - began, started.server, started.exited);
        if (!started.portTaken || attempt === 5) throw new Error(`postgres did not start:\n${started.stderr}`);
      }
    } catch (error) {
      killMentioning(root);
      await waitForNoProcesses(root);
      rmSync(root, { recursive: true, force: true });
      throw error;
    }
  }

  /** Connection settings over the unix socket in the server's folder (trusted, no password). */
  socketConfig(database = 'postgres'): ClientConfig {
    return { host: this.root, port: this.port, user: 'postgres', database };
  }

  /** A TCP URL without the password, as an operator would give `--store` with a pgpass file. */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Writes a pgpass file (mode 0600) for this server into `folder` and answers its path. */
  writePgpass(folder: string): string {
    const file = join(folder, 'pgpass');
    writeFileSync(file, `127.0.0.1:${this.port}:*:postgres:${this.password}\n`, { mode: 0o600 });
    return file;
  }

  /** A new empty database on this server, so tests never see each other's tables. */
  async createDatabase(prefix = 'test'): Promise<string> {
    this.databases += 1;
    const name = `${prefix}_${this.databases}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
    await runSql(this.socketConfig(), `CREATE DATABASE ${name}`);
    return name;
  }

  /** Drops a database, ending the sessions still connected to it. */
  async dropDatabase(name: string): Promise<void> {
    await runSql(this.socketConfig(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }

  /**
   * Fast shutdown (SIGINT: open sessions are ended, nothing waits for clients), a SIGKILL of
   * whatever is left after 10 s, then the folder goes. Idempotent.
   */
  stop(): Promise<StopReport> {
    this.stopped ??= (async () => {
      const began = performance.now();
      this.server.kill('SIGINT');
      const gone = await Promise.race([this.exited.then(() => true), delay(10_000).then(() => false)]);
      if (!gone) {
        killMentioning(this.root);
        await this.exited;
      }
      const stopMs = performance.now() - began;
      const left = await waitForNoProcesses(this.root, 5000);
      rmSync(this.root, { recursive: true, force: true });
      return { stopMs, left };
    })();
    return this.stopped;
  }
}

type ServerStart = { server: ChildProcess; exited: Promise<void> } | { portTaken: boolean; stderr: string };

/** Starts the postmaster as `postgres` and resolves on its ready line, or on its exit before that. */
function startServer(root: string, dataDir: string, port: number, account: PostgresAccount): Promise<ServerStart> {
  const settings = SERVER_SETTINGS.flatMap((setting) => ['-c', setting]);
  // Spawned directly with the account's uid (no runuser in between), so the fast-shutdown
  // signal reaches the postmaster itself and its exit is the one awaited.
  const server = spawn(join(POSTGRES_BIN, 'postgres'), ['-D', dataDir, '-k', root, '-h', '127.0.0.1', '-p', String(port), ...settings], {
    cwd: root,
    uid: account.uid,
    gid: account.gid,
    env: { PATH: process.env.PATH, LANG: 'C', TZ: 'UTC' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((done) => server.once('exit', () => done()));
  return new Promise((resolve) => {
    server.stderr!.on('data', (chunk: Buffer) => {
      // Only the start matters; later lines are read and dropped so the pipe never fills.
      if (stderr.length < 64_000) stderr += chunk.toString('utf8');
      if (READY.test(stderr)) resolve({ server, exited });
    });
    server.once('error', (error) => {
      stderr += String(error);
    });
    void exited.then(() => resolve({ portTaken: PORT_TAKEN.test(stderr), stderr }));
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}
