import { randomFillSync } from 'node:crypto';

/** Random bytes drawn ahead, so an id costs a hex slice, not a system call (room for 128 spans' ids). */
const pool = Buffer.allocUnsafe(24 * 128);
let used = pool.length;
const ALL_ZERO = /^0+$/;

function randomHex(bytes: number): string {
  for (;;) {
    if (used + bytes > pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    const hex = pool.toString('hex', used, used + bytes);
    used += bytes;
    // W3C Trace Context forbids an all-zero id; drawing again keeps the others uniform.
    if (!ALL_ZERO.test(hex)) return hex;
  }
}

/** A new trace id: 16 random bytes as 32 lowercase hex digits, never all zeros. */
export const newTraceId = (): string => randomHex(16);

/** A new span id: 8 random bytes as 16 lowercase hex digits, never all zeros. */
export const newSpanId = (): string => randomHex(8);
