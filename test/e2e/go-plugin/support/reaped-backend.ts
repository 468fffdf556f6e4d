import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listProcesses } from '../../../../src/adapters/grpc/process-tree';
import { readProcessStat } from '../../../../src/adapters/shared/process-identity';
import { TOOLPORT_BIN } from '../../support/backend-process';

const SUBREAPER = resolve(__dirname, '..', '..', '..', 'fixtures', 'plugins', 'subreaper.py');

/** A `toolport serve` whose parent is a child subreaper, as a real init would adopt its orphans. */
export interface ReapedBackend {
  url: string;
  token: string;
  /** The backend's own pid (the reaper's child). */
  pid: number;
  /** Resolves once the reaper exited, which it does only when no descendant of it is left. */
  reaperExited: Promise<number | null>;
  stderr(): string;
  signal(signal: NodeJS.Signals): void;
  /** SIGKILLs the reaper's whole tree (teardown of a failed test). */
  destroy(): Promise<void>;
}

/**
 * Starts `toolport serve --port 0` under test/fixtures/plugins/subreaper.py. PID 1 on the test
 * machines does not reap orphans; the reaper does, so a plugin's child that outlives its
 * parent is reaped once it is ended, and the reaper's exit proves that nothing it ran is left.
 */
export async function startReapedBackend(options: { dataDir: string; args?: string[]; env?: NodeJS.ProcessEnv }): Promise<ReapedBackend> {
  const reaper: ChildProcess = spawn('/usr/bin/python3', [SUBREAPER, process.execPath, TOOLPORT_BIN, 'serve', '--data-dir', options.dataDir, '--port', '0', ...(options.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TOOLPORT_LOG_LEVEL: 'info', ...options.env },
  });
  let err = '';
  reaper.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  reaper.stdout!.resume();
  let gone = false;
  const reaperExited = new Promise<number | null>((done) => reaper.once('exit', (code) => ((gone = true), done(code))));
  const destroy = async (): Promise<void> => {
    for (const pid of treeOf(reaper.pid!)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await reaperExited;
  };
  const infoPath = join(options.dataDir, 'backend.json');
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (gone) throw new Error(`backend exited before it was ready:\n${err}`);
    if (existsSync(infoPath)) {
      const info = JSON.parse(readFileSync(infoPath, 'utf8')) as { url: string; pid: number };
      if (readProcessStat(info.pid)?.ppid === reaper.pid) {
        const token = readFileSync(join(options.dataDir, 'admin.token'), 'utf8').trim();
        return { url: info.url, token, pid: info.pid, reaperExited, stderr: () => err, signal: (name) => process.kill(info.pid, name), destroy };
      }
    }
    if (Date.now() > deadline) {
      await destroy();
      throw new Error(`backend was not ready in time:\n${err}`);
    }
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** `root` and every process under it now, deepest first. */
function treeOf(root: number): number[] {
  const all = new Map<number, number[]>();
  for (const stat of listProcesses()) all.set(stat.ppid, [...(all.get(stat.ppid) ?? []), stat.pid]);
  const order: number[] = [];
  const walk = (pid: number): void => {
    for (const child of all.get(pid) ?? []) walk(child);
    order.push(pid);
  };
  walk(root);
  return order;
}
