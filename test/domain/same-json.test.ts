import fc from 'fast-check';
import { sameJson } from '../../src/domain/same-json';

describe('sameJson', () => {
  it('agrees with comparing JSON text for any JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        expect(sameJson(JSON.parse(JSON.stringify(a)), a)).toBe(true);
      }),
    );
  });

  it('counts key order, since schemas are listed verbatim', () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
  });

  it('refuses a candidate that is not plain JSON even where it looks the same', () => {
    expect(sameJson({ a: new Date(0) }, { a: {} })).toBe(false);
    expect(sameJson({ a: undefined }, {})).toBe(false);
  });
});
