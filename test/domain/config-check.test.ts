import fc from 'fast-check';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { configurationViolations } from '../../src/domain/config-check';
import { readConfigValue } from '../../src/domain/config-value';
import type { JsonObject } from '../../src/domain/json';

const schemas = new AjvSchemaCompiler();

const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    base_url: { type: 'string', format: 'uri' },
    api_token: { type: 'string', writeOnly: true, minLength: 8 },
    retries: { type: 'integer', minimum: 0 },
    hosts: { type: 'array', items: { type: 'string' } },
    limits: { type: 'object', properties: { max: { type: 'integer' } }, required: ['max'] },
  },
  required: ['base_url', 'api_token'],
  additionalProperties: false,
};

describe('configurationViolations', () => {
  it('accepts a configuration that conforms', () => {
    expect(configurationViolations(SCHEMA, { base_url: 'https://t.example', api_token: 'abcdefgh', retries: 2 }, schemas)).toEqual([]);
  });

  it('reports every violation at once, each at its key, required ones as "is required"', () => {
    const violations = configurationViolations(SCHEMA, { retries: -1, hosts: ['a', 7], limits: {}, typo: true }, schemas);
    expect(violations).toEqual(
      expect.arrayContaining([
        { path: 'base_url', message: 'is required' },
        { path: 'api_token', message: 'is required' },
        { path: 'retries', message: 'must be >= 0' },
        { path: 'hosts[1]', message: 'must be string' },
        { path: 'limits.max', message: 'is required' },
        { path: 'typo', message: 'is not a key config_schema allows' },
      ]),
    );
    expect(violations).toHaveLength(6);
  });

  it('never quotes a value, so a secret in a wrong place stays out of the message (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 6 }).filter((s) => /^[A-Za-z0-9]+$/.test(s)),
        (secret) => {
          const violations = configurationViolations(SCHEMA, { base_url: secret, api_token: 7, retries: secret, hosts: secret }, schemas);
          expect(violations.length).toBeGreaterThan(0);
          expect(JSON.stringify(violations)).not.toContain(secret);
        },
      ),
    );
  });

  it('accepts any object without a config_schema, and refuses what is not an object', () => {
    expect(configurationViolations(undefined, { anything: [1, { b: null }] }, schemas)).toEqual([]);
    expect(configurationViolations(undefined, [1], schemas)).toEqual([{ path: '(root)', message: expect.stringContaining('a list') }]);
    expect(configurationViolations(SCHEMA, 'text', schemas)).toEqual([{ path: '(root)', message: expect.stringContaining('a string') }]);
  });
});

describe('readConfigValue (CLI KEY=VALUE typing)', () => {
  it('reads integers, numbers, booleans, null, objects and arrays as declared (property)', () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => expect(readConfigValue({ type: 'integer' }, String(n))).toBe(n)));
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) =>
        expect(readConfigValue({ type: 'number' }, JSON.stringify(n))).toBe(Object.is(n, -0) ? 0 : n),
      ),
    );
    fc.assert(fc.property(fc.boolean(), (b) => expect(readConfigValue({ type: 'boolean' }, String(b))).toBe(b)));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (o) =>
        expect(readConfigValue({ type: 'object' }, JSON.stringify(o))).toEqual(JSON.parse(JSON.stringify(o))),
      ),
    );
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (a) => expect(readConfigValue({ type: 'array' }, JSON.stringify(a))).toEqual(JSON.parse(JSON.stringify(a)))),
    );
    expect(readConfigValue({ type: 'null' }, 'null')).toBeNull();
  });

  it('keeps text as it is for strings, unknown keys and anything that does not read as declared (property)', () => {
    fc.assert(fc.property(fc.string(), (s) => expect(readConfigValue({ type: 'string' }, s)).toBe(s)));
    fc.assert(fc.property(fc.string(), (s) => expect(readConfigValue(undefined, s)).toBe(s)));
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^-?(0|[1-9]\d*)$/.test(s)),
        (s) => expect(readConfigValue({ type: 'integer' }, s)).toBe(s),
      ),
    );
    expect(readConfigValue({ type: 'integer' }, '1.5')).toBe('1.5');
    expect(readConfigValue({ type: 'boolean' }, 'yes')).toBe('yes');
    expect(readConfigValue({ type: 'object' }, '[1]')).toBe('[1]');
  });

  it('tries string last among several types, and takes an enum member written as JSON', () => {
    expect(readConfigValue({ type: ['string', 'integer'] }, '5')).toBe(5);
    expect(readConfigValue({ type: ['string', 'integer'] }, 'five')).toBe('five');
    expect(readConfigValue({ type: ['null', 'string'] }, 'null')).toBeNull();
    expect(readConfigValue({ enum: [1, 2, 'three'] }, '2')).toBe(2);
    expect(readConfigValue({ enum: [1, 2, 'three'] }, 'three')).toBe('three');
    expect(readConfigValue({ const: true }, 'true')).toBe(true);
  });
});
