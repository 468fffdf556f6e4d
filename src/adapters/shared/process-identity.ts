import { readFileSync } from 'node:fs';

/** What /proc/<pid>/stat says about a process (Linux), the fields Toolport relies on. */
export interface ProcessStat {
  pid: number;
  /** One letter: R, S, D, Z (zombie), T, … */
  state: string;
  ppid: number;
  /** Process group id. */
  pgrp: number;
  /** Field 22: clock ticks after boot at which the process started. */
  startTime: number;
}

/** A process named by pid and start time, so that a reused pid is never mistaken for it. */
export interface ProcessIdentity {
  pid: number;
  startTime: number;
}

/**
 * Reads /proc/<pid>/stat; undefined when there is no such process (or no /proc). The command
 * name (field 2) may hold spaces and parentheses, so fields are counted after its last ')'.
 */
export function readProcessStat(pid: number): ProcessStat | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); field n is rest[n - 3].
  return { pid, state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]), startTime: Number(rest[19]) };
}

/** The start time of `pid` (field 22 of /proc/<pid>/stat), or undefined when it does not exist. */
export function processStartTime(pid: number): number | undefined {
  return readProcessStat(pid)?.startTime;
}

/**
 * True when `identity.pid` is still the process that was recorded: it exists, is not a zombie
 * and started at the recorded time. Check this right before signalling a recorded pid.
 */
export function isSameProcess(identity: ProcessIdentity): boolean {
  const stat = readProcessStat(identity.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === identity.startTime;
}
