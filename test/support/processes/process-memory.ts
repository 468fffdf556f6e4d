import { readFileSync, writeFileSync } from 'node:fs';

/** A process's resident memory now (`VmRSS`) or at its peak so far (`VmHWM`), in MB, from /proc. */
export function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for process ${pid}`);
  return Number(match[1]) / 1024;
}

/**
 * Starts a fresh peak: `VmHWM` drops to the current resident size (Linux's clear_refs "5"),
 * so what a test does next is measured alone, whatever the process did before.
 */
export function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
