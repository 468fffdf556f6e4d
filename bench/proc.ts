/**
 * What /proc says about a process tree: its pids, the TCP ports it listens on, and the CPU it
 * has used (the peers part, bench/peers.ts). The parsers are pure, so the unit tests check them
 * on sample tables; the readers around them read the live /proc.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { cpuMs } from './stats';

/** `root` and every process under it, from each pid's parent (pid → ppid). */
export function descendantsOf(root: number, parents: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (found.includes(pid)) continue;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * The ports in a /proc/net/tcp or tcp6 table whose socket is listening (state 0A) and is one of
 * `inodes` (a process's sockets, from its fd links).
 */
export function listeningPortsIn(table: string, inodes: ReadonlySet<string>): number[] {
  const ports: number[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
    const port = Number.parseInt(fields[1]!.split(':')[1]!, 16);
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}

/** Every live process's parent, from /proc/<pid>/stat. */
function parentsNow(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The fields after the last ')': the command name may hold spaces or parentheses.
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended while we looked
    }
  }
  return parents;
}

/** The pids of the trees under `roots` right now (each once). */
export function processTrees(...roots: number[]): number[] {
  const parents = parentsNow();
  return [...new Set(roots.flatMap((root) => descendantsOf(root, parents)))];
}

/** The TCP ports process `pid` listens on right now. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed while we looked
    }
  }
  return ['tcp', 'tcp6'].flatMap((table) => listeningPortsIn(readFileSync(`/proc/${pid}/net/${table}`, 'utf8'), inodes));
}

const cpuOrNull = (pid: number): number | null => {
  try {
    return cpuMs(pid);
  } catch {
    return null;
  }
};

/**
 * Starts counting the CPU (user + system) of `pids`: answers a reading of the ms each has used
 * since. A process that ended in between counts what it had at the start (its last ticks are no
 * longer readable), so a reading never goes back.
 */
export function cpuMeter(pids: readonly number[]): () => number[] {
  const start = pids.map(cpuOrNull);
  return () => pids.map((pid, i) => Math.max(0, (cpuOrNull(pid) ?? start[i] ?? 0) - (start[i] ?? 0)));
}

/** A process's command line, its arguments joined by spaces ('' once it ended). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
