import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessGroupRecord } from '../../../src/adapters/grpc/process-group-record';
import { sweepPluginGroups } from '../../../src/adapters/grpc/sweep-plugin-groups';
import { isSameProcess, processStartTime, readProcessStat } from '../../../src/adapters/shared/process-identity';
import { CapturingLogger } from '../../support/capturing-logger';

/**
 * The start-up sweep over real processes standing in for plugins a killed backend left: `sleep`
 * leaders in their own process groups (children of this test, so each is reaped here).
 */
describe('sweepPluginGroups', () => {
  let dir: string;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-sweep-'));
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  function leader(): ChildProcess {
    const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    children.push(child);
    return child;
  }

  const identityOf = (child: ChildProcess) => ({ pid: child.pid!, startTime: processStartTime(child.pid!)! });

  it('ends a recorded group whose leader is still the process started, removes its TMPDIR and the record', async () => {
    const child = leader();
    const exited = once(child, 'exit');
    const tmpDir = join(dir, 'plugin-tmp', 't1');
    mkdirSync(tmpDir, { recursive: true });
    const recordPath = join(dir, 'plugin-groups.json');
    new ProcessGroupRecord(recordPath).add({ leader: identityOf(child), descendants: [], tmpDir });
    expect(statSync(recordPath).mode & 0o777).toBe(0o600);

    expect(await sweepPluginGroups(recordPath, join(dir, 'plugin-tmp'), new CapturingLogger())).toBe(1);
    expect(await exited).toEqual([null, 'SIGTERM']);
    expect(existsSync(tmpDir)).toBe(false);
    expect(existsSync(recordPath)).toBe(false);
  });

  it('leaves a process alone whose pid matches a record but whose start time does not (a reused pid)', async () => {
    const child = leader();
    const identity = identityOf(child);
    const recordPath = join(dir, 'plugin-groups.json');
    new ProcessGroupRecord(recordPath).add({ leader: { pid: identity.pid, startTime: identity.startTime - 1 }, descendants: [], tmpDir: join(dir, 'gone') });

    expect(await sweepPluginGroups(recordPath, join(dir, 'plugin-tmp'), new CapturingLogger())).toBe(0);
    expect(isSameProcess(identity)).toBe(true);
    expect(readProcessStat(identity.pid)?.state).not.toBe('Z');
  });

  /** A python process of this test that prints `ready` once `setup` ran, then waits on its stdin. */
  async function python(setup: string): Promise<ChildProcess> {
    const child = spawn('/usr/bin/python3', ['-c', `import os, sys\n${setup}\nprint('ready', flush=True)\nsys.stdin.read()`], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(child);
    await once(child.stdout!, 'data');
    return child;
  }

  it('ends recorded descendants outside the group (a setsid child) and the members left in a group whose leader exited', async () => {
    const escaped = leader();
    const control = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(control);
    // A group in this test's session (setpgid needs that), so a second process can join it.
    const groupLeader = await python('os.setpgid(0, 0)');
    const member = await python(`os.setpgid(0, ${groupLeader.pid})`);
    expect(readProcessStat(member.pid!)?.pgrp).toBe(groupLeader.pid);
    const recordPath = join(dir, 'plugin-groups.json');
    new ProcessGroupRecord(recordPath).add({ leader: identityOf(groupLeader), descendants: [identityOf(escaped)], tmpDir: join(dir, 'gone') });
    groupLeader.stdin!.end();
    await once(groupLeader, 'exit');

    const exits = [once(escaped, 'exit'), once(member, 'exit')];
    expect(await sweepPluginGroups(recordPath, join(dir, 'plugin-tmp'), new CapturingLogger())).toBe(2);
    expect(await Promise.all(exits)).toEqual([
      [null, 'SIGTERM'],
      [null, 'SIGTERM'],
    ]);
    expect(isSameProcess(identityOf(control))).toBe(true);
  });
});
