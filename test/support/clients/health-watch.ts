/** What `/healthz` answered while something else ran: each poll's status and how long it took. */
export interface HealthPolls {
  statuses: number[];
  /** Each poll's round trip, ms. */
  durations: number[];
  slowestMs: number;
}

export interface HealthWatch {
  /** Ends the polling after one last poll and answers every poll made. */
  stop(): Promise<HealthPolls>;
}

/**
 * Polls `<baseUrl>/healthz` back to back (each poll waits for the last) until stopped, so a
 * test can show a listener kept answering while a costly request ran beside it. A poll that
 * fails counts as status 0.
 */
export function watchHealth(baseUrl: string): HealthWatch {
  const statuses: number[] = [];
  const durations: number[] = [];
  let stopping = false;
  const pollOnce = async (): Promise<void> => {
    const started = performance.now();
    const status = await fetch(`${baseUrl}/healthz`).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 0,
    );
    durations.push(performance.now() - started);
    statuses.push(status);
  };
  const loop = (async () => {
    while (!stopping) await pollOnce();
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      await pollOnce();
      return { statuses, durations, slowestMs: Math.max(...durations) };
    },
  };
}
