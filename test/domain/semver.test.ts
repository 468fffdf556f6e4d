import { compareSemver, isSemver, parseSemver } from '../../src/domain/semver';

function compare(a: string, b: string): number {
  const left = parseSemver(a);
  const right = parseSemver(b);
  if (left === undefined || right === undefined) throw new Error('not semver');
  return Math.sign(compareSemver(left, right));
}

describe('semantic versions', () => {
  it.each([
    '0.0.0',
    '1.2.3',
    '10.20.30',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-0.3.7',
    '1.0.0-x.7.z.92',
    '1.0.0+20130313144700',
    '1.0.0-beta+exp.sha.5114f85',
  ])('accepts %s', (text) => expect(isSemver(text)).toBe(true));

  it.each(['1', '1.2', '1.2.3.4', 'v1.2.3', '01.2.3', '1.02.3', '1.2.3-', '1.2.3-01', '1.2.3+', ' 1.2.3', '1.2.3-a..b', ''])('refuses %s', (text) =>
    expect(isSemver(text)).toBe(false),
  );

  it('refuses non-strings', () => {
    expect(isSemver(1)).toBe(false);
    expect(isSemver(null)).toBe(false);
  });

  it('orders by semver precedence (semver.org §11 example chain)', () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ];
    for (let i = 0; i + 1 < chain.length; i++) {
      expect(compare(chain[i], chain[i + 1])).toBe(-1);
      expect(compare(chain[i + 1], chain[i])).toBe(1);
    }
  });

  it('ignores build metadata when ordering', () => {
    expect(compare('1.0.0+a', '1.0.0+b')).toBe(0);
  });

  it('compares numbers numerically, not as text', () => {
    expect(compare('1.10.0', '1.9.0')).toBe(1);
  });
});
