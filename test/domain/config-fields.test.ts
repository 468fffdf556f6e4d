import fc from 'fast-check';
import { maskConfiguration, secretFields, SECRET_MASK, unmaskConfiguration } from '../../src/domain/config-fields';
import type { JsonObject } from '../../src/domain/json';

const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri' },
    api_token: { type: 'string', writeOnly: true },
    password: { type: 'string', format: 'password' },
    retries: { type: 'integer' },
    nested: { type: 'object', properties: { deep: { type: 'string', writeOnly: true } } },
  },
};

const key = fc.string({ minLength: 1, maxLength: 12 });

describe('config secrets', () => {
  it('are the top-level properties with writeOnly: true or format: password, or holding one (the whole key is then the secret)', () => {
    expect([...secretFields(SCHEMA)].sort()).toEqual(['api_token', 'nested', 'password']);
    expect(secretFields(undefined).size).toBe(0);
    expect(secretFields({ type: 'object', properties: { a: { writeOnly: 'yes' }, b: { format: 'secret' } } }).size).toBe(0);
  });

  it('are masked on the way out, every other key shown as it is, and only keys with a value', () => {
    const values = { url: 'https://x.example', api_token: 's3cret', retries: 3, nested: { deep: 'hidden: a key holding a secret is one' } };
    expect(maskConfiguration(SCHEMA, values)).toEqual({
      url: 'https://x.example',
      api_token: SECRET_MASK,
      retries: 3,
      nested: SECRET_MASK,
    });
  });

  it('never show a secret value, whatever the configuration (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue()), fc.dictionary(key, fc.constant({ writeOnly: true })), (values, secretProps) => {
        const schema: JsonObject = { type: 'object', properties: secretProps as JsonObject };
        const shown = maskConfiguration(schema, values as JsonObject);
        expect(Object.keys(shown)).toEqual(Object.keys(values));
        for (const name of Object.keys(secretProps)) if (Object.hasOwn(values, name)) expect(shown[name]).toBe(SECRET_MASK);
        for (const name of Object.keys(values)) if (!Object.hasOwn(secretProps, name)) expect(shown[name]).toEqual(values[name]);
      }),
    );
  });

  it('sent back as the mask keep their stored value; a non-secret mask is taken literally', () => {
    const stored = { api_token: 'old', password: 'pw', url: 'u' };
    const sent = { api_token: SECRET_MASK, password: 'new-pw', url: SECRET_MASK };
    expect(unmaskConfiguration(SCHEMA, sent, stored)).toEqual({ values: { api_token: 'old', password: 'new-pw', url: SECRET_MASK }, violations: [] });
  });

  it('sent as the mask with nothing stored are a violation naming the key', () => {
    expect(unmaskConfiguration(SCHEMA, { api_token: SECRET_MASK }, {})).toEqual({
      values: {},
      violations: [{ path: 'api_token', message: expect.stringContaining('has none yet') }],
    });
  });

  it('round-trip: the masked view sent back unchanged restores the stored configuration (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue()), fc.dictionary(key, fc.constant({ format: 'password' })), (values, secretProps) => {
        const schema: JsonObject = { type: 'object', properties: secretProps as JsonObject };
        const stored = values as JsonObject;
        const back = unmaskConfiguration(schema, maskConfiguration(schema, stored), stored);
        expect(back.violations).toEqual([]);
        expect(back.values).toEqual(stored);
      }),
    );
  });

  it('keep "__proto__" a key, never the prototype', () => {
    const values = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as JsonObject;
    const shown = maskConfiguration(SCHEMA, values);
    expect(Object.keys(shown)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(unmaskConfiguration(SCHEMA, values, {}).values)).toBe(Object.prototype);
  });
});
