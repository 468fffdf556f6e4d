import fc from 'fast-check';
import { capabilityNeeded, hostCallDenial, hostCapabilities, HOST_METHODS } from '../../src/domain/host-capabilities';
import { hostKeyProblem, nextStatePageToken, readStatePageQuery, secretValueProblem, stateValueProblem } from '../../src/domain/host-entries';

const keyChar = fc.constantFrom(...'abcXYZ019._:/-'.split(''));
const validKey = fc.tuple(fc.constantFrom(...'aZ7'.split('')), fc.array(keyChar, { maxLength: 255 })).map(([first, rest]) => first + rest.join(''));

describe('Host capabilities', () => {
  it('grant state and secrets only for the literal true', () => {
    expect(hostCapabilities(undefined)).toEqual({ state: false, secrets: false });
    expect(hostCapabilities({ state: true, secrets: 'true', network: true })).toEqual({ state: true, secrets: false });
  });

  it('allow GetConfig to every plugin and every other call only with its capability (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HOST_METHODS), fc.boolean(), fc.boolean(), (method, state, secrets) => {
        const denial = hostCallDenial(method, { state, secrets });
        const needed = capabilityNeeded(method);
        const granted = needed === null || (needed === 'state' ? state : secrets);
        expect(denial === null).toBe(granted);
        if (denial !== null) expect(denial).toContain(`"${needed}"`);
      }),
    );
  });
});

describe('Host keys and values', () => {
  it('accepts every key of the §10 pattern (property)', () => {
    fc.assert(fc.property(validKey, (key) => expect(hostKeyProblem(key)).toBeNull()));
  });

  it('refuses empty, too long, leading punctuation and foreign characters, never echoing the key', () => {
    for (const key of ['', 'a'.repeat(257), '-a', '.a', 'a b', 'ä', 'a\n', 'a?b']) {
      const problem = hostKeyProblem(key);
      expect(problem).not.toBeNull();
      if (key.length > 1) expect(problem).not.toContain(key);
    }
  });

  it('values: state is JSON text ≤ 65536 bytes, a secret any text ≤ 16384 bytes', () => {
    expect(stateValueProblem(JSON.stringify('x'.repeat(65534)))).toBeNull();
    expect(stateValueProblem(JSON.stringify('x'.repeat(65535)))).toMatch(/65537 bytes/);
    expect(stateValueProblem('{oops')).toMatch(/not JSON/);
    expect(stateValueProblem('')).toMatch(/not JSON/);
    expect(secretValueProblem('é'.repeat(8192))).toBeNull();
    expect(secretValueProblem('é'.repeat(8193))).toMatch(/16386 bytes/);
  });
});

describe('ListState paging', () => {
  it('reads 0 as the default and anything over 1000 as 1000', () => {
    expect(readStatePageQuery('', 0, '')).toEqual({ prefix: '', after: undefined, limit: 1000 });
    expect(readStatePageQuery('notes/', 5000, '')).toEqual({ prefix: 'notes/', after: undefined, limit: 1000 });
    expect(readStatePageQuery('notes/', 7, '')).toEqual({ prefix: 'notes/', after: undefined, limit: 7 });
  });

  it('continues after the key a page token names, and refuses a token no answer gave', () => {
    const token = nextStatePageToken(['a', 'b'], true);
    expect(readStatePageQuery('', 2, token)).toEqual({ prefix: '', after: 'b', limit: 2 });
    expect(readStatePageQuery('', 2, 'garbage')).toEqual({ problem: expect.stringContaining('page token') });
    expect(readStatePageQuery('bad prefix', 2, '')).toEqual({ problem: expect.stringContaining('prefix') });
  });

  it('gives no token on the page holding the last key', () => {
    expect(nextStatePageToken(['a', 'b'], false)).toBe('');
    expect(nextStatePageToken([], true)).toBe('');
  });

  it('a token names a key the next query starts after (property)', () => {
    fc.assert(
      fc.property(fc.array(validKey, { minLength: 1, maxLength: 5 }), (keys) => {
        const query = readStatePageQuery('', 10, nextStatePageToken(keys, true));
        expect(query).toEqual({ prefix: '', after: keys[keys.length - 1], limit: 10 });
      }),
    );
  });
});
