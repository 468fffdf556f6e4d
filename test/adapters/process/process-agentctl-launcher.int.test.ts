import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { processStartTime } from '../../../src/adapters/shared/process-identity';
import { ProcessAgentctlLauncher } from '../../../src/adapters/process/process-agentctl-launcher';
import { CapturingLogger } from '../../support/capturing-logger';

function launcher(): ProcessAgentctlLauncher {
  return new ProcessAgentctlLauncher(
    { command: { executable: process.execPath, args: [] }, runDir: tmpdir(), settingsEnv: {}, readyTimeoutMs: 1000 },
    new CapturingLogger(),
  );
}

function identity(child: ChildProcess): { pid: number; startTime: number | null } {
  return { pid: child.pid!, startTime: processStartTime(child.pid!) ?? null };
}

function sleeper(): Promise<ChildProcess> {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  return new Promise((resolve) => child.once('spawn', () => resolve(child)));
}

describe('ProcessAgentctlLauncher.watch (agentctls an earlier backend started)', () => {
  it('answers undefined for a pid that does not run', () => {
    expect(launcher().watch({ pid: 2 ** 22 + 12345, startTime: null })).toBeUndefined();
  });

  it('resolves once the process is gone, and stop() ends it', async () => {
    const child = await sleeper();
    const watching = launcher();
    const exited = watching.watch(identity(child));
    expect(exited).toBeDefined();
    await watching.stop(identity(child));
    await expect(exited).resolves.toEqual({ code: null, signal: null });
  });

  it('stops following after dispose, so nothing acts once the backend shut down', async () => {
    const child = await sleeper();
    const watching = launcher();
    let resolved = false;
    void watching.watch(identity(child))!.then(() => {
      resolved = true;
    });
    watching.dispose();
    await watching.stop(identity(child));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(resolved).toBe(false);
  });

  it('neither follows nor signals a pid whose process started at another time (the pid was reused)', async () => {
    const child = await sleeper();
    const exitedForReal = new Promise((resolve) => child.once('exit', resolve));
    try {
      const recorded = { pid: child.pid!, startTime: identity(child).startTime! - 1 };
      const watching = launcher();
      expect(watching.watch(recorded)).toBeUndefined();
      await watching.stop(recorded);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(child.exitCode).toBeNull();
      expect(child.signalCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
      await exitedForReal;
    }
  });
});
