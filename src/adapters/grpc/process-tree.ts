import { readdirSync, readFileSync } from 'node:fs';
import { isSameProcess, readProcessStat, type ProcessIdentity, type ProcessStat } from '../shared/process-identity';

/** Every process in /proc now (zombies included); a process that ends while being read is skipped. */
export function listProcesses(): ProcessStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessStat[] = [];
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const stat = readProcessStat(Number(name));
    if (stat) found.push(stat);
  }
  return found;
}

/** The last walk `recentProcesses` made, and when (ms since the epoch). */
let lastWalk: { at: number; processes: ProcessStat[] } | undefined;

/**
 * `listProcesses()`, or the walk another caller made within the last `maxAgeMs`: each running
 * plugin's health check refreshes its descendants, and one walk of /proc costs ~14 µs of CPU
 * per process on the machine (1.7 ms with 120, blocking the event loop meanwhile), so 200
 * plugins checked in the same second share one walk instead of making 200 (bench/PROFILE.md
 * §15). A stop walks afresh (`listProcesses`).
 */
export function recentProcesses(maxAgeMs: number, now = Date.now()): ProcessStat[] {
  if (lastWalk && now - lastWalk.at >= 0 && now - lastWalk.at < maxAgeMs) return lastWalk.processes;
  lastWalk = { at: now, processes: listProcesses() };
  return lastWalk.processes;
}

/**
 * The processes that descend from `rootPid` (children, their children, … — a `setsid` child
 * included, since it keeps its parent) plus every member of its process group, the root
 * excluded, found in one walk of /proc. A child re-parented after its parent exited is found
 * only through the group; callers keep what they found earlier for that case.
 */
export function descendantsOf(rootPid: number, processes = listProcesses()): ProcessIdentity[] {
  const children = new Map<number, ProcessStat[]>();
  for (const entry of processes) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const found = new Map<number, ProcessIdentity>();
  const queue = [rootPid, ...processes.filter((p) => p.pgrp === rootPid && p.pid !== rootPid).map((p) => p.pid)];
  for (const entry of processes) if (entry.pgrp === rootPid && entry.pid !== rootPid) found.set(entry.pid, entry);
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (found.has(child.pid) || child.pid === rootPid) continue;
      found.set(child.pid, child);
      queue.push(child.pid);
    }
  }
  return [...found.values()].map(({ pid, startTime }) => ({ pid, startTime }));
}

/**
 * Processes whose environment holds exactly `entry` (`NAME=value`). Each plugin start has its
 * own private TMPDIR, so this finds what a plugin left behind after its leader exited and the
 * kernel re-parented it, as long as it kept the environment it inherited. Other users'
 * processes cannot be read and are skipped.
 */
export function processesWithEnvironment(entry: string, processes = listProcesses()): ProcessIdentity[] {
  const needle = Buffer.from(`\0${entry}\0`);
  const found: ProcessIdentity[] = [];
  for (const process of processes) {
    if (process.state === 'Z') continue;
    try {
      const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${process.pid}/environ`)]);
      if (environ.includes(needle)) found.push({ pid: process.pid, startTime: process.startTime });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Sends `signal` to each process that is still the one recorded; a process already gone is skipped. */
export function signalProcesses(identities: Iterable<ProcessIdentity>, signal: NodeJS.Signals): void {
  for (const identity of identities) {
    if (!isSameProcess(identity)) continue;
    try {
      process.kill(identity.pid, signal);
    } catch {
      // it ended meanwhile
    }
  }
}

/** Resolves once none of `identities` runs any more (a zombie counts as ended), or after `timeoutMs`. */
export async function waitUntilEnded(identities: ProcessIdentity[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!identities.some(isSameProcess)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
