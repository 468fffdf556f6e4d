import { recentProcesses } from '../../../src/adapters/grpc/process-tree';

describe('recentProcesses', () => {
  it('answers the walk made within maxAgeMs, and walks /proc again once it is older', () => {
    const first = recentProcesses(1000, 1_000_000);
    expect(first.some((entry) => entry.pid === process.pid)).toBe(true);
    expect(recentProcesses(1000, 1_000_999)).toBe(first);
    const again = recentProcesses(1000, 1_001_000);
    expect(again).not.toBe(first);
    expect(again.some((entry) => entry.pid === process.pid)).toBe(true);
  });

  it('walks again when the clock went back', () => {
    const first = recentProcesses(1000, 2_000_000);
    expect(recentProcesses(1000, 1_999_000)).not.toBe(first);
  });
});
