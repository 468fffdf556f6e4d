import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import type { JsonObject } from '../../../src/domain/json';

const obj = (extra: JsonObject): JsonObject => ({ type: 'object', ...extra });

/** Schemas that compile, and schemas that do not, including ones their meta-schema accepts. */
const CASES: Array<[string, JsonObject]> = [
  ['a plain object schema', obj({ properties: { a: { type: 'string', minLength: 1 } }, required: ['a'] })],
  ['nested combinators', obj({ properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { not: { const: 3 } } } })],
  ['a valid pattern', obj({ properties: { a: { type: 'string', pattern: '^[a-z]+$' } } })],
  ['valid patternProperties', obj({ patternProperties: { '^x-': { type: 'number' } } })],
  ['draft-07 tuple items', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { t: { items: [{ type: 'string' }] } } }],
  ['a local $ref', obj({ $defs: { s: { type: 'string' } }, properties: { a: { $ref: '#/$defs/s' } } })],
  ['an unknown format (ignored)', obj({ properties: { a: { type: 'string', format: 'no-such-format' } } })],
  ['an unknown keyword (not strict)', obj({ 'x-vendor': { anything: true } })],
  ['a bad type name', obj({ properties: { a: { type: 'strin' } } })],
  ['a negative minLength', obj({ properties: { a: { type: 'string', minLength: -1 } } })],
  ['required that is not a list', obj({ required: 'a' })],
  ['draft 2020-12 tuple items (a list)', obj({ properties: { t: { items: [{ type: 'string' }] } } })],
  ['a dangling $ref', obj({ properties: { a: { $ref: '#/$defs/missing' } } })],
  ['a remote $ref', obj({ properties: { a: { $ref: 'https://example.com/schema.json' } } })],
  ['an invalid pattern', obj({ properties: { a: { type: 'string', pattern: '(' } } })],
  ['a pattern only valid without the u flag', obj({ properties: { a: { type: 'string', pattern: '\\-' } } })],
  ['a pattern with lookahead (not linear-time)', obj({ properties: { a: { type: 'string', pattern: '^a(?=b)' } } })],
  ['a patternProperties key with a backreference', obj({ patternProperties: { '^(x)\\1$': { type: 'number' } } })],
  ['a nested quantifier (linear on RE2)', obj({ properties: { a: { type: 'string', pattern: '^(a+)+$' } } })],
  ['a \\u escape', obj({ properties: { a: { type: 'string', pattern: '^caf\\u00e9$' } } })],
  ['an invalid patternProperties key', obj({ patternProperties: { '[': { type: 'number' } } })],
  ['an empty enum', obj({ properties: { a: { enum: [] } } })],
  ['nullable without type', obj({ properties: { a: { nullable: true } } })],
  ['an unsupported $schema', { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' }],
];

describe('AjvSchemaCompiler.check', () => {
  it.each(CASES)('gives the same answer and message as compile() for %s', (_label, schema) => {
    const compiled = new AjvSchemaCompiler().compile(schema);
    const checked = new AjvSchemaCompiler().check(schema);
    expect(checked).toEqual(compiled.ok ? { ok: true } : { ok: false, message: compiled.message });
  });

  it('does not compile a schema its meta-schema vouches for until it is used', () => {
    const compiler = new AjvSchemaCompiler();
    const schema = obj({ properties: { a: { type: 'string' } }, required: ['a'] });
    const compile = jest.spyOn(compiler as unknown as { compileFresh(s: JsonObject): unknown }, 'compileFresh');
    expect(compiler.check(schema)).toEqual({ ok: true });
    expect(compile).not.toHaveBeenCalled();
    const used = compiler.compile(schema);
    expect(used.ok && used.schema.validate({})).toEqual([{ instancePath: '', message: "must have required property 'a'" }]);
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
