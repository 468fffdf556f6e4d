import { processesMentioning, type ProcessEntry } from './process-table';

/** SIGKILLs every process mentioning `marker`, its group first (plugins and agentctls lead their own). */
export function killMentioning(marker: string): void {
  for (const entry of processesMentioning(marker)) {
    for (const target of [-entry.pid, entry.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // not a group leader, or gone already
      }
    }
  }
}

/** Polls until no process mentions `marker` (or the deadline passes) and answers what is left. */
export async function waitForNoProcesses(marker: string, timeoutMs = 5000): Promise<ProcessEntry[]> {
  const deadline = Date.now() + timeoutMs;
  let left = processesMentioning(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = processesMentioning(marker);
  }
  return left;
}
