import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { POSTGRES_BIN, type PostgresAccount } from './postgres-binaries';

const run = promisify(execFile);

/** A freshly initialised cluster: its data folder and the superuser's password. */
export interface ClusterFiles {
  dataDir: string;
  password: string;
}

/**
 * Where a test run keeps one initialised cluster to copy (jest's globalSetup names it and its
 * globalTeardown removes it). Outside such a run every server gets its own initdb.
 */
export const TEMPLATE_ENV = 'TOOLPORT_TEST_POSTGRES_TEMPLATE';

/**
 * Runs initdb as `postgres` into `<folder>/data`. Local (unix socket) connections are trusted;
 * TCP ones need the superuser's password, so a test can prove a password given in a pgpass
 * file works and never shows. No fsync: a test cluster needs no crash safety.
 */
async function initCluster(folder: string, account: PostgresAccount): Promise<ClusterFiles> {
  const password = randomBytes(18).toString('base64url');
  const passwordFile = join(folder, 'password');
  writeFileSync(passwordFile, password, { mode: 0o600 });
  chownSync(passwordFile, account.uid, account.gid);
  const dataDir = join(folder, 'data');
  const args = ['-u', 'postgres', '--', join(POSTGRES_BIN, 'initdb'), '-D', dataDir, '-U', 'postgres', `--pwfile=${passwordFile}`];
  args.push('--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync', '--no-instructions', '-E', 'UTF8', '--locale=C');
  try {
    await run('runuser', args, { env: { PATH: process.env.PATH, LANG: 'C' } });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`initdb failed: ${stderr?.trim() || String(error)}`);
  }
  return { dataDir, password };
}

/** Copies a cluster with its owner and modes (postgres refuses a data folder others can read). */
async function copyCluster(from: ClusterFiles, folder: string): Promise<ClusterFiles> {
  const dataDir = join(folder, 'data');
  await run('cp', ['-a', from.dataDir, dataDir]);
  return { dataDir, password: from.password };
}

/** The run's template, made by whichever test file needs it first (made aside, then renamed into place). */
async function template(path: string, account: PostgresAccount): Promise<ClusterFiles> {
  if (!existsSync(join(path, 'data'))) {
    const building = mkdtempSync(join(dirname(path), 'toolport-pg-building-'));
    chownSync(building, account.uid, account.gid);
    try {
      await initCluster(building, account);
      renameSync(building, path);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      // Another test file renamed its own template into place first: use that one.
      if (!existsSync(join(path, 'data'))) throw error;
    }
  }
  return { dataDir: join(path, 'data'), password: readFileSync(join(path, 'password'), 'utf8') };
}

/** A new cluster in `folder` (owned by postgres): a copy of the run's template when there is one, else initdb. */
export async function newCluster(folder: string, account: PostgresAccount): Promise<ClusterFiles> {
  const templatePath = process.env[TEMPLATE_ENV];
  if (!templatePath) return initCluster(folder, account);
  return copyCluster(await template(templatePath, account), folder);
}

/** The template path for a test run: named now, made on first use. */
export function templatePathForRun(): string {
  return join(tmpdir(), `toolport-pg-template-${process.pid}-${randomBytes(4).toString('hex')}`);
}
