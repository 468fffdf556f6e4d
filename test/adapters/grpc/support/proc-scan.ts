import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

/** Every process in /proc (a process that vanishes while being read is skipped). */
export function listProcesses(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the last ')' (the command name may itself hold spaces or parentheses).
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      entries.push({ pid: Number(name), state: rest[0], ppid: Number(rest[1]), cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return entries;
}

/**
 * Processes a test left behind: a process that names one of `markers` (the fixture folders)
 * in its command line, or is a zombie, and that is either a child of this test process or
 * one of the `pids` the test saw (a zombie's cmdline is empty, so only its pid or parent finds
 * it). Owning it matters: jest runs other test files, with the same fixtures, side by side.
 */
export function leftoverProcesses(markers: string[], pids: Iterable<number> = []): ProcessEntry[] {
  const seen = new Set(pids);
  return listProcesses().filter((entry) => {
    if (entry.pid === process.pid) return false;
    const ours = entry.ppid === process.pid || seen.has(entry.pid);
    const plugin = entry.state === 'Z' || markers.some((marker) => entry.cmdline.includes(marker));
    return ours && plugin;
  });
}

/** True while a process with this pid exists in any state (a zombie counts: it was not reaped). */
export function processExists(pid: number): boolean {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}
