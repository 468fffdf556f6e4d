import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid runs now. A zombie (exited, not yet reaped: PID 1 here does
 * not reap orphans) still answers kill(0), so on Linux /proc has the last word. A process of
 * another user (EPERM) counts as running.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const afterName = stat.slice(stat.lastIndexOf(')') + 2);
    return afterName[0] !== 'Z';
  } catch (error) {
    // No /proc (not Linux): kill(0) said it runs. A vanished entry: it is gone.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !existsProcFs();
  }
}

function existsProcFs(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}
