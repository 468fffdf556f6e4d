import { newSpanId, newTraceId } from '../../../src/adapters/otel/span-ids';

describe('span ids', () => {
  it('draws W3C ids: lowercase hex of 16 and 8 bytes, never all zeros, and no two alike over many', () => {
    const traces = new Set<string>();
    const spans = new Set<string>();
    // Past the pool's 128 spans' worth of bytes, so a refill is drawn too.
    for (let i = 0; i < 1000; i++) {
      const trace = newTraceId();
      const span = newSpanId();
      expect(trace).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
      expect(span).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
      traces.add(trace);
      spans.add(span);
    }
    expect(traces.size).toBe(1000);
    expect(spans.size).toBe(1000);
  });
});
