import { TimedWaiters } from '../../../src/application/shared/timed-waiters';

describe('TimedWaiters', () => {
  it('hands the released value to every waiter still waiting', async () => {
    const waiters = new TimedWaiters<string>();
    const first = waiters.wait(10_000);
    const second = waiters.wait(10_000);
    waiters.release('ready');
    await expect(Promise.all([first, second])).resolves.toEqual(['ready', 'ready']);
  });

  it('gives undefined to a waiter whose time ran out, and nothing it later releases', async () => {
    const waiters = new TimedWaiters<string>();
    await expect(waiters.wait(5)).resolves.toBeUndefined();
    const later = waiters.wait(10_000);
    waiters.release('ready');
    await expect(later).resolves.toBe('ready');
  });
});
