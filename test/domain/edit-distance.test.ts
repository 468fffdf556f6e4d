import fc from 'fast-check';
import { closestName, editDistance } from '../../src/domain/edit-distance';

const word = fc.string({ maxLength: 12 });

describe('editDistance', () => {
  it.each([
    ['agent_tool', 'agent_tools', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['same', 'same', 0],
    ['flaw', 'lawn', 2],
  ])('%s → %s is %d', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  it('is a metric: zero only for equal strings, symmetric, and within the triangle inequality', () => {
    fc.assert(
      fc.property(word, word, word, (a, b, c) => {
        expect(editDistance(a, b) === 0).toBe(a === b);
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, c)).toBeLessThanOrEqual(editDistance(a, b) + editDistance(b, c));
      }),
    );
  });

  it('is at least the difference in length and at most the longer length', () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const distance = editDistance(a, b);
        expect(distance).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
        expect(distance).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });

  it('counts one edit for one inserted, removed or replaced character', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), fc.nat(), fc.constantFrom('x', '_', '9'), (a, at, char) => {
        const i = at % a.length;
        expect(editDistance(a, a.slice(0, i) + char + a.slice(i))).toBe(1);
        expect(editDistance(a, a.slice(0, i) + a.slice(i + 1))).toBe(1);
        if (a[i] !== char) expect(editDistance(a, a.slice(0, i) + char + a.slice(i + 1))).toBe(1);
      }),
    );
  });
});

describe('closestName', () => {
  const fields = ['agent_tools', 'api_version', 'capabilities', 'runtime', 'id'];

  it.each([
    ['agent_tool', 'agent_tools'],
    ['agenttools', 'agent_tools'],
    ['Agent_Tools', 'agent_tools'],
    ['capabilites', 'capabilities'],
    ['runtme', 'runtime'],
    ['ids', 'id'],
  ])('suggests %s → %s', (typo, meant) => {
    expect(closestName(typo, fields)).toBe(meant);
  });

  it.each(['tools', 'color', 'x_custom_field'])('suggests nothing for %s, which is near no field', (name) => {
    expect(closestName(name, fields)).toBeUndefined();
  });

  it('always suggests a field one edit away from a known one', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fields.filter((f) => f.length > 2)), fc.nat(), (field, at) => {
        const i = at % field.length;
        expect(closestName(field.slice(0, i) + field.slice(i + 1), fields)).toBe(field);
      }),
    );
  });
});
