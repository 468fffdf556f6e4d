/**
 * Callers waiting, each up to its own timeout, for one value that arrives later (the first
 * snapshot, the session identity). A waiter whose time runs out gets `undefined`.
 */
export class TimedWaiters<T> {
  private readonly waiters = new Set<(value: T) => void>();

  wait(timeoutMs: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const waiter = (value: T): void => {
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Hands `value` to every waiter and forgets them. */
  release(value: T): void {
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiting) waiter(value);
  }
}
