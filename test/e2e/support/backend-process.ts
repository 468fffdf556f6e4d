import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..', '..');
export const TOOLPORT_BIN = join(root, 'bin', 'toolport');

export interface RunningBackend {
  url: string;
  token: string;
  pid: number;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Output seen on stderr so far (JSON log lines). */
  stderr(): string;
  /** Sends `signal` and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface BackendOptions {
  dataDir: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
}

/** Starts `toolport serve --port 0` and resolves once it wrote backend.json (its readiness signal). */
export async function startBackend(options: BackendOptions): Promise<RunningBackend> {
  const child = spawn(process.execPath, [TOOLPORT_BIN, 'serve', '--data-dir', options.dataDir, '--port', '0', ...(options.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TOOLPORT_LOG_LEVEL: 'info', ...options.env },
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const infoPath = join(options.dataDir, 'backend.json');
  const deadline = Date.now() + (options.readyTimeoutMs ?? 20000);
  for (;;) {
    if (gone) throw new Error(`backend exited before it was ready:\n${err}`);
    if (existsSync(infoPath)) {
      const info = JSON.parse(readFileSync(infoPath, 'utf8')) as { url: string; pid: number };
      if (info.pid === child.pid) {
        const token = options.env?.TOOLPORT_ADMIN_TOKEN ?? readFileSync(join(options.dataDir, 'admin.token'), 'utf8').trim();
        return {
          url: info.url,
          token,
          pid: child.pid!,
          child,
          exited,
          stderr: () => err,
          async stop(signal: NodeJS.Signals = 'SIGTERM') {
            if (!gone) child.kill(signal);
            return exited;
          },
        };
      }
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`backend was not ready in time:\n${err}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A small client for the §9 HTTP API. */
export function apiClient(url: string, token: string) {
  return async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(new URL(path, url), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };
}
