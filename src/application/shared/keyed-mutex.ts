/**
 * Runs async work one at a time per key (a plugin id), so two lifecycle calls on one plugin
 * never interleave while calls on different plugins proceed side by side.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const tail = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      // Forget the key once nobody queued behind us, so the map does not grow forever.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
