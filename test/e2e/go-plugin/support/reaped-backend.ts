import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readProcessStat } from '../../../../src/adapters/shared/process-identity';
import { eventually } from '../../../support/eventually';
import { ProcessRun } from '../../../support/processes/process-run';
import type { ProcessSandbox } from '../../../support/processes/process-sandbox';
import { TOOLPORT_BIN } from '../../../support/processes/toolport-paths';

const SUBREAPER = resolve(__dirname, '..', '..', '..', 'fixtures', 'plugins', 'subreaper.py');

/** A `toolport serve` whose parent is a child subreaper, as a real init would adopt its orphans. */
export interface ReapedBackend {
  url: string;
  token: string;
  /** The backend's own pid (the reaper's child). */
  pid: number;
  /** The reaper's exit code, once it exited: it does only when no descendant of it is left. */
  reaperExited: Promise<number | null>;
  stderr(): string;
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM (a graceful stop), then the reaper's exit code: 0 once nothing it ran is left. */
  stop(): Promise<number | null>;
}

/**
 * Starts `toolport serve --port 0` under test/fixtures/plugins/subreaper.py, tracked by
 * `sandbox`. PID 1 on the test machines does not reap orphans; the reaper does, so a plugin's
 * child that outlives its parent is reaped once it is ended, and the reaper's exit proves
 * that nothing it ran is left.
 */
export async function startReapedBackend(sandbox: ProcessSandbox, dataDir: string, args: string[] = []): Promise<ReapedBackend> {
  const reaper = sandbox.track(
    new ProcessRun('/usr/bin/python3', [SUBREAPER, process.execPath, TOOLPORT_BIN, 'serve', '--data-dir', dataDir, '--port', '0', ...args], {
      env: { ...process.env, TOOLPORT_LOG_LEVEL: 'info' },
      stdout: 'ignore',
    }),
  );
  const infoPath = join(dataDir, 'backend.json');
  const info = await eventually(
    () => {
      if (!reaper.running) throw new Error(`backend exited before it was ready:\n${reaper.stderr()}`);
      if (!existsSync(infoPath)) return undefined;
      const written = JSON.parse(readFileSync(infoPath, 'utf8')) as { url: string; pid: number };
      // A backend.json left by an earlier backend on this data dir is not this one's signal.
      return readProcessStat(written.pid)?.ppid === reaper.pid ? written : undefined;
    },
    20_000,
    'the backend to write backend.json',
  );
  return {
    url: info.url,
    token: readFileSync(join(dataDir, 'admin.token'), 'utf8').trim(),
    pid: info.pid,
    reaperExited: reaper.exited,
    stderr: () => reaper.stderr(),
    signal: (name) => process.kill(info.pid, name),
    stop: () => {
      process.kill(info.pid, 'SIGTERM');
      return reaper.exited;
    },
  };
}
