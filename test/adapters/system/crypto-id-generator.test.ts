import { CryptoIdGenerator } from '../../../src/adapters/system/crypto-id-generator';
import { SystemClock } from '../../../src/adapters/system/system-clock';

describe('CryptoIdGenerator', () => {
  const ids = new CryptoIdGenerator();

  it('gives distinct URL-safe ids', () => {
    const seen = new Set(Array.from({ length: 200 }, () => ids.newId()));
    expect(seen.size).toBe(200);
    for (const id of seen) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('gives URL-safe tokens of at least 256 bits, never repeated', () => {
    const a = ids.newToken();
    const b = ids.newToken();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(a, 'base64url').length).toBeGreaterThanOrEqual(32);
  });

  it('gives exactly n lowercase hex digits, odd n included', () => {
    expect(ids.randomHex(8)).toMatch(/^[0-9a-f]{8}$/);
    expect(ids.randomHex(5)).toMatch(/^[0-9a-f]{5}$/);
  });
});

describe('SystemClock', () => {
  it('reads the wall clock and formats it as ISO 8601 UTC', () => {
    const clock = new SystemClock();
    const before = Date.now();
    const now = clock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(clock.isoNow()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
