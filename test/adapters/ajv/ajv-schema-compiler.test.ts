import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import type { JsonObject } from '../../../src/domain/json';
import type { CompiledSchema } from '../../../src/domain/schema-compiler';

function compiled(compiler: AjvSchemaCompiler, schema: JsonObject): CompiledSchema {
  const result = compiler.compile(schema);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(schema)} to compile: ${result.message}`);
  return result.schema;
}

describe('AjvSchemaCompiler', () => {
  const compiler = new AjvSchemaCompiler();

  it('reports every issue as {instancePath, message} (allErrors)', () => {
    const schema = compiled(compiler, {
      type: 'object',
      properties: { value: { type: 'string' }, count: { type: 'integer' } },
      required: ['value', 'count'],
    });
    expect(schema.validate({ value: 3, count: 'x' })).toEqual([
      { instancePath: '/value', message: 'must be string' },
      { instancePath: '/count', message: 'must be integer' },
    ]);
    expect(schema.validate({ value: 'a', count: 1 })).toEqual([]);
  });

  it('uses draft 2020-12 by default (prefixItems is understood)', () => {
    const schema = compiled(compiler, {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    });
    expect(schema.validate({ pair: ['a', 'b'] })).toEqual([{ instancePath: '/pair/1', message: 'must be number' }]);
  });

  it('accepts the 2020-12 $schema URI itself', () => {
    expect(compiler.compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }).ok).toBe(true);
  });

  it.each([
    'http://json-schema.org/draft-07/schema#',
    'http://json-schema.org/draft-07/schema',
    'https://json-schema.org/draft-07/schema#',
    'https://json-schema.org/draft-07/schema',
  ])('uses draft-07 when $schema is %s (tuple-form items, invalid in 2020-12)', (uri) => {
    const tuple: JsonObject = { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } } };
    expect(compiler.compile(tuple).ok).toBe(false);
    const schema = compiled(compiler, { $schema: uri, ...tuple });
    expect(schema.validate({ pair: ['a', 'b'] })).toEqual([{ instancePath: '/pair/1', message: 'must be number' }]);
  });

  it.each(['http://json-schema.org/draft-04/schema#', 'https://example.com/my-meta', 'draft-07'])('refuses any other $schema (%s) with a message', (uri) => {
    const result = compiler.compile({ $schema: uri, type: 'object' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('$schema');
  });

  it('refuses a non-string $schema', () => {
    expect(compiler.compile({ $schema: 7, type: 'object' }).ok).toBe(false);
  });

  it('refuses a schema that breaks its meta-schema', () => {
    const result = compiler.compile({ type: 'objekt' });
    expect(result.ok).toBe(false);
  });

  it('refuses a remote $ref instead of loading it', () => {
    const result = compiler.compile({ type: 'object', $ref: 'https://example.com/remote.json' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('https://example.com/remote.json');
  });

  it('checks known formats (ajv-formats)', () => {
    const schema = compiled(compiler, { type: 'object', properties: { mail: { type: 'string', format: 'email' } } });
    expect(schema.validate({ mail: 'not-an-email' })).toHaveLength(1);
    expect(schema.validate({ mail: 'a@example.com' })).toEqual([]);
  });

  it('ignores unknown formats without printing anything', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const schema = compiled(compiler, { type: 'object', properties: { a: { type: 'string', format: 'made-up' } } });
      expect(schema.validate({ a: 'anything' })).toEqual([]);
      expect(warn).not.toHaveBeenCalled();
      expect(log).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });

  it('is not strict: unknown keywords are allowed', () => {
    expect(compiler.compile({ type: 'object', 'x-ui': { widget: 'text' } }).ok).toBe(true);
  });

  it('uses the schema as declared: no additionalProperties is added', () => {
    const schema = compiled(compiler, { type: 'object', properties: { a: { type: 'string' } } });
    expect(schema.validate({ a: 'x', extra: 1 })).toEqual([]);
  });

  it('lets two schemas share one $id with different contents', () => {
    const first = compiled(compiler, { $id: 'https://example.com/s.json', type: 'object', properties: { a: { type: 'string' } } });
    const second = compiled(compiler, { $id: 'https://example.com/s.json', type: 'object', properties: { a: { type: 'number' } } });
    expect(first.validate({ a: 1 })).toHaveLength(1);
    expect(second.validate({ a: 1 })).toEqual([]);
  });

  it('caches compiled validators per schema text', () => {
    const fresh = new AjvSchemaCompiler();
    const a = fresh.compile({ type: 'object', properties: { x: { type: 'string' } } });
    const b = fresh.compile({ type: 'object', properties: { x: { type: 'string' } } });
    const c = fresh.compile({ type: 'object', properties: { x: { type: 'number' } } });
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (a.ok && b.ok && c.ok) {
      expect(b.schema).toBe(a.schema);
      expect(c.schema).not.toBe(a.schema);
    }
  });

  it('does not alter the declared schema object', () => {
    const schema: JsonObject = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' };
    const before = JSON.stringify(schema);
    compiler.compile(schema);
    expect(JSON.stringify(schema)).toBe(before);
  });

  describe('patterns (matched in linear time)', () => {
    const stringWith = (pattern: string): CompiledSchema => compiled(compiler, { type: 'object', properties: { a: { type: 'string', pattern } } });

    it('answers a catastrophic-backtracking pattern at once (V8 would take longer than the universe)', () => {
      const schema = stringWith('^(a+)+$');
      expect(schema.validate({ a: `${'a'.repeat(50_000)}!` })).toEqual([{ instancePath: '/a', message: 'must match pattern "^(a+)+$"' }]);
      expect(schema.validate({ a: 'aaaa' })).toEqual([]);
    });

    it('searches anywhere in the string unless anchored, as JSON Schema says', () => {
      expect(stringWith('b+').validate({ a: 'abbbc' })).toEqual([]);
      expect(stringWith('^b+').validate({ a: 'abbbc' })).toHaveLength(1);
    });

    it('keeps ECMA-262 \\u escapes and Unicode classes working', () => {
      expect(stringWith('^caf\\u00e9$').validate({ a: 'café' })).toEqual([]);
      expect(stringWith('^\\u{1F600}$').validate({ a: '😀' })).toEqual([]);
      expect(stringWith('^\\p{L}+$').validate({ a: 'Grüße' })).toEqual([]);
      expect(stringWith('^\\\\u0041$').validate({ a: '\\u0041' })).toEqual([]);
    });

    it('applies to patternProperties too', () => {
      const schema = compiled(compiler, { type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } } });
      expect(schema.validate({ [`${'x'.repeat(20_000)}`]: 'no' })).toHaveLength(1);
    });

    it.each([
      ['lookahead', 'a(?=b)'],
      ['lookbehind', '(?<=a)b'],
      ['a backreference', '(a)\\1'],
    ])('refuses %s with a message naming the pattern and why', (_label, pattern) => {
      const result = compiler.compile({ type: 'object', properties: { a: { type: 'string', pattern } } });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.message).toContain(JSON.stringify(pattern));
        expect(result.message).toContain('linear time');
        expect(result.message).not.toMatch(/\n\s+at /);
      }
    });
  });
});
