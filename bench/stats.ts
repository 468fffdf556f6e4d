/** Small statistics and process helpers for the bench (bench-only code, not part of src/). */
import { readFileSync } from 'node:fs';

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);
export const p95 = (values: readonly number[]): number => quantile(values, 0.95);

/** Milliseconds taken by `fn`. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export function timedSync(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** Resident set size of a process in MB, from /proc/<pid>/status VmRSS. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}

/** Runs `total` calls of `call` with `concurrency` workers; answers calls per second. */
export async function throughput(concurrency: number, total: number, call: (n: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total) await call(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((performance.now() - started) / 1000);
}

export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in 10 ms ticks.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Times one call of each side per round, in a random order each round, so the drifting load
 * of a shared machine falls on every side alike. Answers the milliseconds of each side.
 */
export async function alternating(rounds: number, sides: ReadonlyArray<(n: number) => Promise<unknown>>): Promise<number[][]> {
  const times = sides.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    const order = sides.map((_, index) => index).sort(() => Math.random() - 0.5);
    for (const side of order) {
      const started = performance.now();
      await sides[side]!(i);
      times[side]!.push(performance.now() - started);
    }
  }
  return times;
}

/** The median and 95th percentile of some timings. */
export interface Spread {
  p50: number;
  p95: number;
}

export const spread = (values: readonly number[]): Spread => ({ p50: median(values), p95: p95(values) });

/** The median of `a[i] − b[i]`: what one side adds over the other, call by call. */
export const pairedDifferenceP50 = (a: readonly number[], b: readonly number[]): number => median(a.map((t, i) => t - b[i]!));
