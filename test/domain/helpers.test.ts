import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { utf8ByteLength } from '../../src/domain/byte-length';
import { canonicalJson } from '../../src/domain/canonical-json';
import type { JsonValue } from '../../src/domain/json';
import { isPlainJson } from '../../src/domain/plain-json';
import { hashToken } from '../../src/domain/tokens';

describe('hashToken', () => {
  it('is the SHA-256 hex of the token', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('differs for different tokens and never contains the token', () => {
    expect(hashToken('token-a')).not.toBe(hashToken('token-b'));
    expect(hashToken('token-a')).not.toContain('token-a');
  });
});

describe('utf8ByteLength', () => {
  it('counts like Buffer.byteLength for any text, lone surrogates included (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 300 },
    );
    expect(utf8ByteLength('\ud800x')).toBe(Buffer.byteLength('\ud800x', 'utf8'));
    expect(utf8ByteLength('é😀')).toBe(6);
  });
});

describe('canonicalJson', () => {
  it('is equal for objects with the same content in any key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }));
  });

  it('keeps array order significant', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('parses back to the same value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => expect(JSON.parse(canonicalJson(value as JsonValue))).toEqual(JSON.parse(JSON.stringify(value)))),
      {
        numRuns: 200,
      },
    );
  });

  it('hashes the same as node:crypto on the same text', () => {
    const text = canonicalJson({ a: 1 });
    expect(hashToken(text)).toBe(createHash('sha256').update(text).digest('hex'));
  });
});

describe('isPlainJson', () => {
  it('accepts anything JSON.parse makes (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => expect(isPlainJson(JSON.parse(JSON.stringify(value)))).toBe(true)),
      { numRuns: 200 },
    );
  });

  it.each([
    ['undefined', undefined],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['a date', new Date(0)],
    ['a function', () => 1],
    ['a nested undefined', { a: { b: undefined } }],
    ['a sparse array', [1, , 3]],
    ['a bigint', BigInt(1)],
  ])('refuses %s', (_label, value) => {
    expect(isPlainJson(value)).toBe(false);
  });

  it('refuses a cycle', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(isPlainJson(cyclic)).toBe(false);
  });

  it('accepts a value shared by two branches (not a cycle)', () => {
    const shared = { x: 1 };
    expect(isPlainJson({ a: shared, b: shared })).toBe(true);
  });
});
