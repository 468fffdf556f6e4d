export interface PollOptions {
  /** Pause between two checks, in ms. */
  everyMs?: number;
  /**
   * Keep polling when `check` throws, and name the last error on timeout. Off by default: an
   * error then ends the wait at once, so a check cannot hide a failure by retrying past it.
   */
  retryErrors?: boolean;
}

type Found<T> = Exclude<T, undefined | null | false | 0 | ''>;

/** Polls `check` until it answers a truthy value, which it returns; fails after `timeoutMs`, naming `what`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5000, what = 'condition', options: PollOptions = {}): Promise<Found<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Found<T>;
    } catch (error) {
      if (!options.retryErrors) throw error;
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 25));
  }
}
