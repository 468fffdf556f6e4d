import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { maskConfiguration, secretDeclarations, secretFields } from '../../src/domain/config-fields';
import type { JsonObject } from '../../src/domain/json';
import { validateManifest } from '../../src/domain/manifest-validation';

const options = { schemas: new AjvSchemaCompiler(), toolportVersion: '1.4.0' };

function withConfigSchema(config_schema: JsonObject): JsonObject {
  return { api_version: 1, id: 'acme.tools', version: '1.0.0', config_schema };
}

/** Issue 25: however a config_schema declares a secret, it is one (masked wherever it is shown), or the manifest is refused. */
describe('secrets declared through $ref and the combinators', () => {
  it('are secrets through a local $ref, to definitions or $defs, at the key or at the whole schema', () => {
    const schema: JsonObject = {
      type: 'object',
      definitions: { token: { type: 'string', writeOnly: true }, plain: { type: 'string' } },
      $defs: { password: { type: 'string', format: 'password' } },
      properties: {
        api_token: { $ref: '#/definitions/token' },
        db_password: { $ref: '#/$defs/password' },
        url: { $ref: '#/definitions/plain' },
      },
    };
    expect([...secretFields(schema)].sort()).toEqual(['api_token', 'db_password']);
    const referred: JsonObject = {
      $ref: '#/definitions/config',
      definitions: { config: { type: 'object', properties: { key: { type: 'string', writeOnly: true } } } },
    };
    expect([...secretFields(referred)]).toEqual(['key']);
  });

  it('are secrets inside allOf, anyOf and oneOf, at the root or under a key', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        token: { allOf: [{ type: 'string' }, { writeOnly: true }] },
        either: { anyOf: [{ type: 'string', format: 'password' }, { type: 'null' }] },
        url: { type: 'string' },
      },
      allOf: [{ properties: { from_all: { type: 'string', writeOnly: true } } }],
      anyOf: [{ properties: { from_any: { format: 'password' } } }],
      oneOf: [{ properties: { from_one: { $ref: '#/definitions/s' } } }, { properties: { plain: { type: 'string' } } }],
      definitions: { s: { writeOnly: true } },
    };
    expect([...secretFields(schema)].sort()).toEqual(['either', 'from_all', 'from_any', 'from_one', 'token']);
    expect(maskConfiguration(schema, { token: 't', either: 'e', from_all: 'a', from_any: 'b', from_one: 'c', url: 'u', plain: 'p' })).toEqual({
      token: '********',
      either: '********',
      from_all: '********',
      from_any: '********',
      from_one: '********',
      url: 'u',
      plain: 'p',
    });
  });

  it('mask the whole key when the secret is nested in it, and survive a $ref cycle', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        account: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string', format: 'password' } } },
        keys: { type: 'array', items: { type: 'string', writeOnly: true } },
        tree: { $ref: '#/definitions/node' },
        note: { type: 'string', default: { format: 'password' } },
      },
      definitions: { node: { type: 'object', properties: { child: { $ref: '#/definitions/node' } } } },
    };
    expect(secretDeclarations(schema)).toEqual({ secrets: new Set(['account', 'keys']), problems: [] });
  });

  it.each([
    ['patternProperties', { type: 'object', patternProperties: { '^key_': { type: 'string', writeOnly: true } } }, '(root).patternProperties'],
    ['additionalProperties', { type: 'object', additionalProperties: { type: 'string', format: 'password' } }, '(root).additionalProperties'],
    ['not', { type: 'object', not: { properties: { x: { writeOnly: true } } } }, '(root).not'],
    ['the root itself', { type: 'object', writeOnly: true, properties: { a: { type: 'string' } } }, '(root)'],
    ['a $ref leaving the schema', { type: 'object', properties: { token: { $ref: 'https://example.com/secret.json' } } }, '(root).properties.token'],
    ['a $ref to nothing', { type: 'object', properties: { token: { $ref: '#/definitions/missing' } } }, '(root).properties.token'],
  ])('are refused at validation when declared through %s, naming where', (_how, schema, where) => {
    const result = validateManifest(withConfigSchema(schema as JsonObject), options);
    expect(result.ok).toBe(false);
    const messages = result.ok ? [] : result.violations.filter((v) => v.path === 'config_schema').map((v) => v.message);
    expect(messages.some((message) => message.startsWith(`${where}:`))).toBe(true);
  });

  it('leave a schema with plain secrets, or none, valid', () => {
    const schema = { type: 'object', properties: { url: { type: 'string' }, token: { type: 'string', writeOnly: true } }, additionalProperties: false };
    expect(validateManifest(withConfigSchema(schema), options).ok).toBe(true);
    expect([...secretFields(schema)]).toEqual(['token']);
  });
});
