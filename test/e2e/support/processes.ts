import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  state: string;
  cmdline: string;
}

/** Every process (zombies included) whose command line or environment-free cmdline mentions `marker`. */
export function processesMentioning(marker: string): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      const cwd = safeReadlink(`/proc/${name}/cwd`);
      if (cmdline.includes(marker) || cwd.includes(marker) || (state === 'Z' && cmdline === '')) {
        found.push({ pid, state, cmdline });
      }
    } catch {
      // the process ended while we looked
    }
  }
  return found.filter((entry) => entry.state !== 'Z' || isOurZombie(entry.pid, marker));
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** A zombie counts when its parent is this test process (we failed to reap it). */
function isOurZombie(pid: number, _marker: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]) === process.pid;
  } catch {
    return false;
  }
}

/** Polls until no process mentions `marker` (or the deadline passes) and returns what is left. */
export async function waitForNoProcesses(marker: string, timeoutMs = 5000): Promise<ProcessEntry[]> {
  const deadline = Date.now() + timeoutMs;
  let left = processesMentioning(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = processesMentioning(marker);
  }
  return left;
}
