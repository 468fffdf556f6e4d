import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../eventually';
import { ProcessRun } from './process-run';
import { TOOLPORT_BIN } from './toolport-paths';

export interface BackendOptions {
  dataDir: string;
  /** Flags after `serve --data-dir … --port 0`. */
  args?: string[];
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  /** Another build's `bin/toolport` (the bench's build before a change); this checkout's by default. */
  bin?: string;
  /** Starts it (through prlimit) with this soft and hard limit on open files, as a system's defaults would give it. */
  openFiles?: { soft: number; hard: number };
  /**
   * Runs it (through setpriv) as this local account and its primary group instead of this
   * process's user, the way an operator runs it under a dedicated account; the data dir must be
   * that account's.
   */
  user?: string;
}

export interface RunningBackend {
  url: string;
  /** The admin token: TOOLPORT_ADMIN_TOKEN when given, else the one it wrote to admin.token. */
  token: string;
  pid: number;
  run: ProcessRun;
  /** Its JSON log lines so far (its agentctls' too: they write to the same stderr). */
  stderr(): string;
  /** Sends `signal` and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `toolport serve --port 0` and resolves once it wrote backend.json, its readiness signal. */
export async function startBackend(options: BackendOptions): Promise<RunningBackend> {
  const argv = [process.execPath, options.bin ?? TOOLPORT_BIN, 'serve', '--data-dir', options.dataDir, '--port', '0', ...(options.args ?? [])];
  // prlimit and setpriv set the limits and the user, then exec the backend, so the pid is the backend's.
  const asUser = options.user ? ['setpriv', `--reuid=${options.user}`, `--regid=${options.user}`, '--clear-groups', ...argv] : argv;
  const limited = options.openFiles ? ['prlimit', `--nofile=${options.openFiles.soft}:${options.openFiles.hard}`, ...asUser] : asUser;
  const run = new ProcessRun(limited[0]!, limited.slice(1), {
    env: { ...process.env, TOOLPORT_LOG_LEVEL: 'info', ...options.env },
    stdout: 'ignore',
  });
  const infoPath = join(options.dataDir, 'backend.json');
  const info = await eventually(
    () => {
      if (!run.running) throw new Error('backend exited before it was ready');
      if (!existsSync(infoPath)) return undefined;
      const written = JSON.parse(readFileSync(infoPath, 'utf8')) as { url: string; pid: number };
      // A backend.json left by an earlier backend on this data dir is not this one's signal.
      return written.pid === run.pid ? written : undefined;
    },
    options.readyTimeoutMs ?? 20_000,
    'the backend to write backend.json',
  ).catch(async (error: unknown) => {
    await run.stop('SIGKILL');
    throw new Error(`${error instanceof Error ? error.message : String(error)}:\n${run.stderr()}`);
  });
  const token = options.env?.TOOLPORT_ADMIN_TOKEN ?? readFileSync(join(options.dataDir, 'admin.token'), 'utf8').trim();
  return { url: info.url, token, pid: run.pid, run, stderr: () => run.stderr(), stop: (signal = 'SIGTERM') => run.stop(signal) };
}
