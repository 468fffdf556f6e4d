import { KeyedMutex } from '../../../src/application/shared/keyed-mutex';

describe('KeyedMutex', () => {
  it('runs work on one key one at a time, in order, and other keys alongside', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const first = mutex.run('a', async () => {
      log.push('a1 start');
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      log.push('a1 end');
    });
    const second = mutex.run('a', async () => {
      log.push('a2');
    });
    const other = mutex.run('b', async () => {
      log.push('b');
    });
    await other;
    expect(log).toEqual(['a1 start', 'b']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(log).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });

  it('keeps going after a failure and passes the failure to its caller', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(mutex.run('a', async () => 42)).resolves.toBe(42);
  });
});
