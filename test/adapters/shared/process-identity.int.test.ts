import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { isSameProcess, processStartTime, readProcessStat } from '../../../src/adapters/shared/process-identity';

/** Start times from /proc, which tell a running process from another one that got its pid. */
describe('process identity', () => {
  it('reads this process: its parent, group and a start time that stays the same', () => {
    const stat = readProcessStat(process.pid)!;
    expect(stat).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(stat.startTime).toBeGreaterThan(0);
    expect(processStartTime(process.pid)).toBe(stat.startTime);
    expect(isSameProcess({ pid: process.pid, startTime: stat.startTime })).toBe(true);
  });

  it('tells a recorded process from one with another start time, and from one that is gone', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const identity = { pid: child.pid!, startTime: processStartTime(child.pid!)! };
    expect(readProcessStat(child.pid!)?.pgrp).toBe(child.pid);
    expect(isSameProcess(identity)).toBe(true);
    expect(isSameProcess({ ...identity, startTime: identity.startTime + 1 })).toBe(false);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(isSameProcess(identity)).toBe(false);
    expect(processStartTime(child.pid!)).toBeUndefined();
  });

  it('answers nothing for a pid that cannot exist', () => {
    expect(readProcessStat(0)).toBeUndefined();
    expect(readProcessStat(-1)).toBeUndefined();
    expect(isSameProcess({ pid: 2 ** 31, startTime: 1 })).toBe(false);
  });
});
