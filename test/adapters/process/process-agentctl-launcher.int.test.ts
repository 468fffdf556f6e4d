import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { ProcessAgentctlLauncher } from '../../../src/adapters/process/process-agentctl-launcher';
import { CapturingLogger } from '../../support/capturing-logger';

function launcher(): ProcessAgentctlLauncher {
  return new ProcessAgentctlLauncher(
    { command: { executable: process.execPath, args: [] }, runDir: tmpdir(), settingsEnv: {}, readyTimeoutMs: 1000 },
    new CapturingLogger(),
  );
}

function sleeper(): Promise<ChildProcess> {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  return new Promise((resolve) => child.once('spawn', () => resolve(child)));
}

describe('ProcessAgentctlLauncher.watch (agentctls an earlier backend started)', () => {
  it('answers undefined for a pid that does not run', () => {
    expect(launcher().watch(2 ** 22 + 12345)).toBeUndefined();
  });

  it('resolves once the process is gone, and stop() ends it', async () => {
    const child = await sleeper();
    const watching = launcher();
    const exited = watching.watch(child.pid!);
    expect(exited).toBeDefined();
    await watching.stop(child.pid!);
    await expect(exited).resolves.toEqual({ code: null, signal: null });
  });

  it('stops following after dispose, so nothing acts once the backend shut down', async () => {
    const child = await sleeper();
    const watching = launcher();
    let resolved = false;
    void watching.watch(child.pid!)!.then(() => {
      resolved = true;
    });
    watching.dispose();
    await watching.stop(child.pid!);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(resolved).toBe(false);
  });
});
