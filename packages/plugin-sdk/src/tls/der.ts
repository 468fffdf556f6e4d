/**
 * Just enough ASN.1 DER to write one X.509 certificate (self-signed-certificate.ts): each
 * function returns one complete element, tag, length and contents.
 */
export function element(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export const sequence = (...items: Buffer[]): Buffer => element(0x30, ...items);
export const set = (...items: Buffer[]): Buffer => element(0x31, ...items);
export const octetString = (bytes: Buffer): Buffer => element(0x04, bytes);
export const utf8String = (text: string): Buffer => element(0x0c, Buffer.from(text, 'utf8'));
export const booleanTrue = (): Buffer => element(0x01, Buffer.from([0xff]));
/** `[n] EXPLICIT`: a constructed context-specific wrapper around `inner`. */
export const explicit = (n: number, inner: Buffer): Buffer => element(0xa0 | n, inner);

/** A non-negative INTEGER from big-endian bytes (a leading 0 keeps a high first bit positive). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const trimmed = bytes.subarray(start);
  return element(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

/** A BIT STRING whose bits are whole bytes except for `unusedBits` trailing zero bits. */
export const bitString = (bytes: Buffer, unusedBits = 0): Buffer => element(0x03, Buffer.from([unusedBits]), bytes);

export function objectIdentifier(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups: number[] = [];
    for (let value = arc; ; value = Math.floor(value / 128)) {
      groups.unshift((value % 128) | (groups.length > 0 ? 0x80 : 0));
      if (value < 128) break;
    }
    bytes.push(...groups);
  }
  return element(0x06, Buffer.from(bytes));
}

/** UTCTime for 1950–2049 and GeneralizedTime after, as RFC 5280 §4.1.2.5 requires. */
export function time(date: Date): Buffer {
  const iso = date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:T]/g, '');
  const year = date.getUTCFullYear();
  return year < 2050 ? element(0x17, Buffer.from(iso.slice(2), 'ascii')) : element(0x18, Buffer.from(iso, 'ascii'));
}
