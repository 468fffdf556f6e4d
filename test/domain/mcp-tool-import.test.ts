import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import type { JsonObject } from '../../src/domain/json';
import { cutToBytes, importMcpTools, localToolName, MAX_IMPORTED_TOOLS } from '../../src/domain/mcp-tool-import';
import type { ToolSurface } from '../../src/domain/surfaces';

const schemas = new AjvSchemaCompiler();
const surfaces: ToolSurface[] = ['kanban-task', 'office-task'];

function tool(name: string, extra: JsonObject = {}): JsonObject {
  return { name, description: `Does ${name}.`, inputSchema: { type: 'object' }, ...extra };
}

function run(serverTools: JsonObject[], allowList?: string[]) {
  return importMcpTools({ serverTools, surfaces, ...(allowList === undefined ? {} : { allowList }) }, schemas);
}

describe('localToolName', () => {
  it('lowers ASCII letters and replaces every character outside [a-z0-9_] with _', () => {
    expect(localToolName('Read-File.v2')).toBe('read_file_v2');
    expect(localToolName('créer entité')).toBe('cr_er_entit_');
  });

  it('replaces a non-ASCII letter with one _ even where lower-casing it would make two characters', () => {
    expect(localToolName('İx')).toBe('_x');
  });

  it('replaces an astral character with one _', () => {
    expect(localToolName('a😀b')).toBe('a_b');
  });

  it('cuts to 32 characters', () => {
    expect(localToolName('a'.repeat(40))).toBe('a'.repeat(32));
  });
});

describe('cutToBytes', () => {
  it('keeps text within the limit as it is', () => {
    expect(cutToBytes('abc', 3)).toBe('abc');
  });

  it('cuts at a character boundary, never inside a multi-byte character', () => {
    expect(cutToBytes('aé', 2)).toBe('a');
    expect(cutToBytes('a😀', 4)).toBe('a');
    expect(cutToBytes('a😀', 5)).toBe('a😀');
  });
});

describe('importMcpTools', () => {
  it('imports a tool with its local name, original name, the manifest surfaces and §1 annotation defaults', () => {
    const result = run([tool('Create-Entities')]);
    expect(result.warnings).toEqual([]);
    expect(result.tools).toEqual([
      {
        name: 'create_entities',
        server_name: 'Create-Entities',
        description: 'Does Create-Entities.',
        surfaces,
        input_schema: { type: 'object' },
        annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
      },
    ]);
  });

  it('carries title, outputSchema and annotation hints under the manifest names, and nothing else', () => {
    const [imported] = run([
      tool('read', {
        title: 'Read',
        outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
        annotations: { readOnlyHint: true, openWorldHint: false, title: 'ignored' },
        icons: [{ src: 'x' }],
        _meta: { a: 1 },
      }),
    ]).tools;
    expect(imported).toEqual({
      name: 'read',
      server_name: 'read',
      title: 'Read',
      description: 'Does read.',
      surfaces,
      input_schema: { type: 'object' },
      output_schema: { type: 'object', properties: { n: { type: 'number' } } },
      annotations: { read_only_hint: true, destructive_hint: false, idempotent_hint: false, open_world_hint: false },
    });
  });

  it('cuts a long description to 1024 bytes and a title to 128 bytes at character boundaries', () => {
    const [imported] = run([tool('t', { description: 'é'.repeat(600), title: 'ü'.repeat(100) })]).tools;
    expect(imported.description).toBe('é'.repeat(512));
    expect(imported.title).toBe('ü'.repeat(64));
  });

  it('leaves out every tool of a group whose local names collide, naming each', () => {
    const result = run([tool('read-file'), tool('read_file'), tool('Read.File'), tool('other')]);
    expect(result.tools.map((t) => t.name)).toEqual(['other']);
    expect(result.warnings).toEqual([
      { path: 'server_tools["read-file"]', message: 'its local name "read_file" collides with "read_file", "Read.File"; not imported' },
      { path: 'server_tools["read_file"]', message: 'its local name "read_file" collides with "read-file", "Read.File"; not imported' },
      { path: 'server_tools["Read.File"]', message: 'its local name "read_file" collides with "read-file", "read_file"; not imported' },
    ]);
  });

  it('leaves out both copies of a tool the server lists twice', () => {
    const result = run([tool('dup'), tool('dup')]);
    expect(result.tools).toEqual([]);
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0].message).toContain('collides');
  });

  it('counts names cut to the same 32 characters as a collision', () => {
    const result = run([tool(`${'a'.repeat(32)}1`), tool(`${'a'.repeat(32)}2`)]);
    expect(result.tools).toEqual([]);
    expect(result.warnings).toHaveLength(2);
  });

  it('leaves out a tool whose local name breaks the name rule', () => {
    const result = run([tool('_private'), tool('')]);
    expect(result.tools).toEqual([]);
    expect(result.warnings).toEqual([
      { path: 'server_tools["_private"]', message: 'its local name "_private" must match ^[a-z0-9][a-z0-9_]{0,31}$; not imported' },
      { path: 'server_tools[""]', message: 'its local name "" must match ^[a-z0-9][a-z0-9_]{0,31}$; not imported' },
    ]);
  });

  it('leaves out a tool without a name', () => {
    const result = run([{ description: 'x', inputSchema: { type: 'object' } }]);
    expect(result.tools).toEqual([]);
    expect(result.warnings).toEqual([{ path: 'server_tools[0]', message: 'has no name; not imported' }]);
  });

  it.each([
    ['absent', undefined],
    ['blank', ' \n\t'],
    ['not text', 42],
  ])('leaves out a tool whose description is %s', (_case, description) => {
    const given = tool('t');
    if (description === undefined) delete given.description;
    else given.description = description;
    const result = run([given]);
    expect(result.tools).toEqual([]);
    expect(result.warnings).toEqual([{ path: 'server_tools["t"]', message: 'it has no description; not imported' }]);
  });

  it('leaves out a tool whose description or title holds a C0 or C1 control character, but allows tab and newline', () => {
    const result = run([
      tool('a', { description: 'bad\u001b[31m' }),
      tool('b', { title: 'bad\u0085' }),
      tool('c', { description: 'line\n\tindented', title: 'tab\tok' }),
    ]);
    expect(result.tools.map((t) => t.name)).toEqual(['c']);
    expect(result.warnings).toEqual([
      { path: 'server_tools["a"]', message: 'its description holds a control character; not imported' },
      { path: 'server_tools["b"]', message: 'its title holds a control character; not imported' },
    ]);
  });

  it('leaves out a tool whose schemas break the agent-tool schema rules', () => {
    const noInput = tool('none');
    delete noInput.inputSchema;
    const result = run([
      noInput,
      tool('array_root', { inputSchema: { type: 'array' } }),
      tool('bad_output', { outputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } } }),
      tool('huge', { inputSchema: { type: 'object', description: 'x'.repeat(70000) } }),
      tool('draft', { inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } }),
    ]);
    expect(result.tools).toEqual([]);
    const messages = Object.fromEntries(result.warnings.map((w) => [w.path, w.message]));
    expect(messages['server_tools["none"]']).toBe('it has no inputSchema; not imported');
    expect(messages['server_tools["array_root"]']).toBe('its inputSchema root "type" must be "object"; not imported');
    expect(messages['server_tools["bad_output"]']).toMatch(/^its outputSchema does not compile: /);
    expect(messages['server_tools["huge"]']).toMatch(/^its inputSchema is \d+ bytes as compact JSON, more than 65536/);
    expect(messages['server_tools["draft"]']).toMatch(/^its inputSchema does not compile: /);
  });

  it('keeps a draft-07 schema as declared', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false };
    expect(run([tool('t', { inputSchema: schema })]).tools[0].input_schema).toEqual(schema);
  });

  it('leaves out a tool whose hints are not booleans or are both read-only and destructive', () => {
    const result = run([tool('a', { annotations: { readOnlyHint: 'yes' } }), tool('b', { annotations: { readOnlyHint: true, destructiveHint: true } })]);
    expect(result.tools).toEqual([]);
    expect(result.warnings).toEqual([
      { path: 'server_tools["a"]', message: 'its annotations.read_only_hint must be a boolean, not a string; not imported' },
      { path: 'server_tools["b"]', message: 'its annotations read_only_hint and destructive_hint cannot both be true; not imported' },
    ]);
  });

  it('imports only the allow-listed original names and warns about a listed name the server lacks', () => {
    const result = run([tool('Keep'), tool('drop')], ['Keep', 'missing']);
    expect(result.tools.map((t) => t.server_name)).toEqual(['Keep']);
    expect(result.warnings).toEqual([{ path: 'runtime.tools', message: 'the server has no tool "missing"' }]);
  });

  it('ignores a collision with a tool the allow-list leaves out', () => {
    const result = run([tool('read-file'), tool('read_file')], ['read_file']);
    expect(result.tools.map((t) => t.server_name)).toEqual(['read_file']);
    expect(result.warnings).toEqual([]);
  });

  it('imports the first 64 by local name in byte order and warns about each of the rest', () => {
    const names = Array.from({ length: 70 }, (_, i) => `t${String(i).padStart(2, '0')}`).reverse();
    const result = run([...names.map((name) => tool(name)), tool('Z_last'), tool('0first')]);
    expect(result.tools).toHaveLength(MAX_IMPORTED_TOOLS);
    expect(result.tools[0].name).toBe('0first');
    expect(result.tools[63].name).toBe('t62');
    expect(result.warnings.map((w) => w.path)).toEqual([
      'server_tools["t63"]',
      'server_tools["t64"]',
      'server_tools["t65"]',
      'server_tools["t66"]',
      'server_tools["t67"]',
      'server_tools["t68"]',
      'server_tools["t69"]',
      'server_tools["Z_last"]',
    ]);
    expect(result.warnings[0].message).toBe('beyond the first 64 tools by local name; not imported');
  });

  it('counts the cap only over tools that would import', () => {
    const good = Array.from({ length: 64 }, (_, i) => tool(`b${String(i).padStart(2, '0')}`));
    const result = run([tool('a_bad', { description: '' }), ...good]);
    expect(result.tools).toHaveLength(64);
    expect(result.warnings).toHaveLength(1);
  });

  it('escapes control characters and cuts long server names in warnings', () => {
    const result = run([tool('\u009bx', { description: '' }), tool('y'.repeat(100), { description: '' })]);
    expect(result.warnings[0].path).toBe('server_tools["\\u009bx"]');
    expect(result.warnings[1].path).toBe(`server_tools["${'y'.repeat(64)}…"]`);
  });

  it('gives the same answer for the same list', () => {
    const list = [tool('b'), tool('a', { annotations: { idempotentHint: true } })];
    expect(run(list)).toEqual(run(JSON.parse(JSON.stringify(list)) as JsonObject[]));
  });
});
