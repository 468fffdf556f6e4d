import { DefaultJsonSchemaValidator, process as shimProcess } from '../../../src/adapters/mcp/sdk-node-shims';

// The SDK's own, as its Node build resolves it (its types are for the newer module resolutions only).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DefaultJsonSchemaValidator: SdkValidator } = require('@modelcontextprotocol/server/_shims') as {
  DefaultJsonSchemaValidator: new () => { getValidator(schema: object): (input: unknown) => unknown };
};

// The standalone file's stand-in for the SDK's Node shims answers as the SDK's own does.
const schemas: Array<[string, Record<string, unknown>, unknown[]]> = [
  [
    '2020-12 by default',
    { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } }, required: ['pair'] },
    [{ pair: ['a', 1] }, { pair: [1, 'a'] }, {}],
  ],
  [
    'draft-07 by $schema',
    { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'integer', minimum: 2 } } },
    [{ n: 3 }, { n: 1 }, { n: 'x' }],
  ],
  [
    'formats checked',
    { type: 'object', properties: { email: { type: 'string', format: 'email' }, when: { type: 'string', format: 'date-time' } } },
    [{ email: 'a@b.example' }, { email: 'nope' }, { when: 'yesterday' }],
  ],
  ['every error reported', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } }, [{ a: 1, b: 2 }]],
];

describe('the standalone agentctl file’s MCP SDK shims', () => {
  it.each(schemas)('validate %s as the SDK’s own do', (_what, schema, inputs) => {
    const ours = new DefaultJsonSchemaValidator().getValidator(schema);
    const theirs = new SdkValidator().getValidator(schema);
    expect(inputs.map((input) => ours(input))).toEqual(inputs.map((input) => theirs(input)));
  });

  it('reuse a schema compiled under its $id', () => {
    const validator = new DefaultJsonSchemaValidator();
    const schema = { $id: 'urn:toolport:test', type: 'string' };
    expect([validator.getValidator(schema)('a').valid, validator.getValidator(schema)(1).valid]).toEqual([true, false]);
  });

  it('give the process object', () => {
    expect(shimProcess).toBe(process);
  });
});
