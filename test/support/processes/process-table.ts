import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  state: string;
  cmdline: string;
  ppid: number;
}

/**
 * Every process whose command line or working folder mentions `marker`, and every zombie this
 * process left unreaped (PID 1 here reaps nothing, so an orphan's zombie is not ours to count).
 */
export function processesMentioning(marker: string): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      const { state, ppid } = statOf(pid);
      const mentions = cmdline.includes(marker) || cwdOf(pid).includes(marker);
      if (state === 'Z' ? ppid === process.pid && (mentions || cmdline === '') : mentions) found.push({ pid, state, cmdline, ppid });
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

function statOf(pid: number): { state: string; ppid: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the last ')': the command name may itself hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], ppid: Number(fields[1]) };
}

function cwdOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return '';
  }
}
