/**
 * Starts the bench's `toolport serve` from the private app copy scripts/bench.js builds, and
 * writes SDK plugin packages (manifest + one bundled main.js), like a plugin author ships them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { stringify } from 'yaml';
import { waitFor } from './stats';

/** Where the private app copy and the checkout are (set by scripts/bench.js). */
export const APP_ROOT = process.env.TOOLPORT_BENCH_APP ?? join(__dirname, '..');
export const REPO_ROOT = process.env.TOOLPORT_BENCH_REPO ?? join(__dirname, '..');
export const TOOLPORT_BIN = join(APP_ROOT, 'bin', 'toolport');

export interface BenchBackend {
  url: string;
  token: string;
  pid: number;
  child: ChildProcess;
  exited: Promise<void>;
  /** Everything written on stderr so far (the backend's and its agentctls' JSON log lines). */
  stderr(): string;
}

export async function startBackend(dataDir: string): Promise<BenchBackend> {
  const child = spawn(process.execPath, [TOOLPORT_BIN, 'serve', '--data-dir', dataDir, '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TOOLPORT_LOG_LEVEL: 'info' },
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  let gone = false;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  void exited.then(() => {
    gone = true;
  });
  const infoPath = join(dataDir, 'backend.json');
  const info = await waitFor(
    () => {
      if (gone) throw new Error(`backend exited before it was ready:\n${err.slice(-3000)}`);
      if (!existsSync(infoPath)) return undefined;
      const parsed = JSON.parse(readFileSync(infoPath, 'utf8')) as { url: string; pid: number };
      return parsed.pid === child.pid ? parsed : undefined;
    },
    30_000,
    'the backend to write backend.json',
  );
  const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
  return { url: info.url, token, pid: child.pid!, child, exited, stderr: () => err };
}

/** A small client for the HTTP API. */
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

/** Writes a plugin package: `manifest.yaml` plus `source` bundled with the SDK into main.js. */
export function writePluginPackage(dir: string, manifest: Record<string, unknown>, source: string): void {
  mkdirSync(dir, { recursive: true });
  buildSync({
    stdin: { contents: source, resolveDir: REPO_ROOT, loader: 'ts', sourcefile: 'main.ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: join(dir, 'main.js'),
    alias: { 'toolport/plugin-sdk': join(REPO_ROOT, 'src/adapters/grpc/sdk/index.ts') },
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'error',
  });
  chmodSync(join(dir, 'main.js'), 0o755);
  writeFileSync(join(dir, 'manifest.yaml'), stringify({ ...manifest, runtime: { type: 'binary', executables: { any: 'main.js' } } }));
}
