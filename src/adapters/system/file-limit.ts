import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The open-file limit of a process, as /proc/<pid>/limits says it (`Infinity` for unlimited). */
export interface FileLimit {
  soft: number;
  hard: number;
}

/** RLIMIT_NOFILE of `pid`, or undefined where there is no /proc (not Linux). */
export function readFileLimit(pid: number | 'self' = 'self'): FileLimit | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/limits`, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!match) return undefined;
  const value = (field: string) => (field === 'unlimited' ? Infinity : Number(field));
  return { soft: value(match[1]!), hard: value(match[2]!) };
}

/**
 * Raises this process's soft RLIMIT_NOFILE to its hard limit (docs/operations.md §1), so that
 * idle connections run into the listener's own caps long before the descriptors run out. Node
 * has no setrlimit: `prlimit` (util-linux) sets it on our own pid. Node's start-up already
 * raises the soft limit on Linux, so this usually finds nothing to do; it matters where that
 * did not happen. Answers the limit in force afterwards, and never throws: without /proc or
 * prlimit the limit stays as it was.
 */
export function raiseFileLimit(): { limit: FileLimit | undefined; raised: boolean; problem?: string } {
  const before = readFileLimit();
  if (!before || before.soft >= before.hard) return { limit: before, raised: false };
  const hard = before.hard === Infinity ? 'unlimited' : String(before.hard);
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${hard}:${hard}`], { stdio: 'ignore', timeout: 5000 });
  } catch (error) {
    return { limit: before, raised: false, problem: `prlimit failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  const after = readFileLimit();
  return { limit: after, raised: (after?.soft ?? 0) > before.soft };
}
