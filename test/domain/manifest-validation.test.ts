import fc from 'fast-check';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import type { Violation } from '../../src/domain/errors';
import type { JsonObject } from '../../src/domain/json';
import { validateManifest } from '../../src/domain/manifest-validation';

const options = { schemas: new AjvSchemaCompiler(), toolportVersion: '1.4.0' };

function toolEntry(overrides: JsonObject = {}): JsonObject {
  return {
    name: 'add_tag',
    description: 'Adds a tag',
    surfaces: ['kanban-task'],
    input_schema: { type: 'object', properties: { tag: { type: 'string' } } },
    ...overrides,
  };
}

function manifest(overrides: JsonObject = {}, tool: JsonObject = {}): JsonObject {
  return {
    api_version: 1,
    id: 'acme.tools',
    version: '1.2.0',
    runtime: { type: 'binary', executables: { 'linux-x64': 'bin/plugin' } },
    agent_tools: [toolEntry(tool)],
    ...overrides,
  };
}

function violationsOf(value: unknown): Violation[] {
  const result = validateManifest(value, options);
  return result.ok ? [] : result.violations;
}

function paths(value: unknown): string[] {
  return violationsOf(value).map((violation) => violation.path);
}

describe('validateManifest: a valid manifest', () => {
  it('is accepted, with unknown fields dropped, defaults applied and surfaces sorted', () => {
    const result = validateManifest(
      manifest(
        { display_name: 'Acme', extra_field: true, capabilities: { tasks: 'read' } },
        { surfaces: ['office-task', 'kanban-task'], unknown: 1, title: 'Add tag' },
      ),
      options,
    );
    expect(result).toEqual({
      ok: true,
      manifest: {
        api_version: 1,
        id: 'acme.tools',
        version: '1.2.0',
        display_name: 'Acme',
        runtime: { type: 'binary', executables: { 'linux-x64': 'bin/plugin' }, args: [] },
        capabilities: { tasks: 'read' },
        agent_tools: [
          {
            name: 'add_tag',
            title: 'Add tag',
            description: 'Adds a tag',
            surfaces: ['kanban-task', 'office-task'],
            input_schema: { type: 'object', properties: { tag: { type: 'string' } } },
            annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
          },
        ],
      },
    });
  });

  it('accepts a manifest with no agent tools and no runtime (agent_tools becomes [])', () => {
    const result = validateManifest({ api_version: 1, id: 'quiet', version: '0.1.0' }, options);
    expect(result.ok && result.manifest.agent_tools).toEqual([]);
  });

  it('keeps schemas exactly as declared (no additionalProperties added)', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, 'x-extra': [1] };
    const result = validateManifest(manifest({}, { input_schema: schema, output_schema: schema }), options);
    expect(result.ok && result.manifest.agent_tools[0].input_schema).toEqual(schema);
    expect(result.ok && result.manifest.agent_tools[0].output_schema).toEqual(schema);
  });

  it.each([['1.2.3'], ['1.0.0-alpha.1'], ['0.0.1-rc.1+build.5']])('accepts version %s', (version) => {
    expect(violationsOf(manifest({ version }))).toEqual([]);
  });

  it.each([['a'], ['a1'], ['acme.tools'], ['task-tags.v1'], ['a_b-c.d'], ['0' + 'x'.repeat(63)]])('accepts id %s', (id) => {
    expect(violationsOf(manifest({ id }))).toEqual([]);
  });

  it.each([['any'], ['linux-x64'], ['darwin-arm64'], ['win32-x64']])('accepts executable key %s', (key) => {
    expect(violationsOf(manifest({ runtime: { type: 'binary', executables: { [key]: './bin/x' } } }))).toEqual([]);
  });

  it('accepts exactly 16 agent tools', () => {
    const tools = Array.from({ length: 16 }, (_, i) => toolEntry({ name: `t${i}` }));
    expect(violationsOf(manifest({ agent_tools: tools }))).toEqual([]);
  });

  it('accepts a title of 128 bytes and a description of 1024 bytes (multi-byte counted as bytes)', () => {
    expect(violationsOf(manifest({}, { title: 'é'.repeat(64), description: 'é'.repeat(512) }))).toEqual([]);
  });

  it('accepts runtime.args as a list of strings', () => {
    const result = validateManifest(manifest({ runtime: { type: 'binary', executables: { any: 'x' }, args: ['--a', 'b'] } }), options);
    expect(result.ok && result.manifest.runtime?.args).toEqual(['--a', 'b']);
  });

  it('accepts min_toolport_version equal to or older than the running version', () => {
    expect(violationsOf(manifest({ min_toolport_version: '1.4.0' }))).toEqual([]);
    expect(violationsOf(manifest({ min_toolport_version: '1.3.9' }))).toEqual([]);
  });

  it('accepts a draft-07 schema and an output schema', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' };
    expect(violationsOf(manifest({}, { input_schema: schema, output_schema: { type: 'object' } }))).toEqual([]);
  });
});

describe('validateManifest: annotation defaults', () => {
  const resolved = (annotations: unknown) => {
    const result = validateManifest(manifest({}, { annotations } as JsonObject), options);
    return result.ok ? result.manifest.agent_tools[0].annotations : result.violations;
  };

  it.each([
    ['omitted', undefined, { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true }],
    ['empty', {}, { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true }],
    [
      'read-only makes an omitted destructive false',
      { read_only_hint: true },
      { read_only_hint: true, destructive_hint: false, idempotent_hint: false, open_world_hint: true },
    ],
    [
      'read-only with explicit destructive false',
      { read_only_hint: true, destructive_hint: false },
      { read_only_hint: true, destructive_hint: false, idempotent_hint: false, open_world_hint: true },
    ],
    [
      'all explicit',
      { read_only_hint: false, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
      { read_only_hint: false, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
    ],
  ])('%s', (_label, annotations, expected) => {
    expect(resolved(annotations)).toEqual(expected);
  });

  it('refuses read_only_hint and destructive_hint both explicitly true', () => {
    expect(violationsOf(manifest({}, { annotations: { read_only_hint: true, destructive_hint: true } }))).toEqual([
      { path: 'agent_tools[0].annotations', message: expect.stringContaining('both be true') },
    ]);
  });
});

describe('validateManifest: each rule refuses what it should, at its path', () => {
  const bigSchema = { type: 'object', description: 'x'.repeat(65536) };
  const cases: Array<[string, JsonObject, string]> = [
    ['api_version missing', manifest({ api_version: undefined as never }), 'api_version'],
    ['api_version 2', manifest({ api_version: 2 }), 'api_version'],
    ['api_version "1"', manifest({ api_version: '1' }), 'api_version'],
    ['id missing', manifest({ id: undefined as never }), 'id'],
    ['id upper case', manifest({ id: 'Acme' }), 'id'],
    ['id starting with .', manifest({ id: '.acme' }), 'id'],
    ['id ending in .', manifest({ id: 'acme.' }), 'id'],
    ['id ending in -', manifest({ id: 'acme-' }), 'id'],
    ['id ending in _', manifest({ id: 'acme_' }), 'id'],
    ['id of 65 chars', manifest({ id: 'a'.repeat(65) }), 'id'],
    ['id with a slash', manifest({ id: 'a/b' }), 'id'],
    ['version missing', manifest({ version: undefined as never }), 'version'],
    ['version 1.2', manifest({ version: '1.2' }), 'version'],
    ['version v1.2.3', manifest({ version: 'v1.2.3' }), 'version'],
    ['version 01.2.3', manifest({ version: '01.2.3' }), 'version'],
    ['version a number', manifest({ version: 1 }), 'version'],
    ['display_name a number', manifest({ display_name: 5 }), 'display_name'],
    ['description a list', manifest({ description: ['a'] }), 'description'],
    ['min_toolport_version not semver', manifest({ min_toolport_version: 'latest' }), 'min_toolport_version'],
    ['min_toolport_version newer than Toolport', manifest({ min_toolport_version: '1.5.0' }), 'min_toolport_version'],
    ['min_toolport_version newer by patch', manifest({ min_toolport_version: '1.4.1' }), 'min_toolport_version'],
    ['runtime missing with agent_tools', manifest({ runtime: undefined as never }), 'runtime.type'],
    ['runtime not a mapping', manifest({ runtime: 'binary' }), 'runtime'],
    ['runtime.type missing', manifest({ runtime: { executables: { any: 'x' } } }), 'runtime.type'],
    ['runtime.type docker', manifest({ runtime: { type: 'docker', executables: { any: 'x' } } }), 'runtime.type'],
    ['runtime.executables missing', manifest({ runtime: { type: 'binary' } }), 'runtime.executables'],
    ['runtime.executables empty', manifest({ runtime: { type: 'binary', executables: {} } }), 'runtime.executables'],
    ['executable key unknown', manifest({ runtime: { type: 'binary', executables: { 'linux-amd64': 'x' } } }), 'runtime.executables.linux-amd64'],
    ['executable absolute', manifest({ runtime: { type: 'binary', executables: { 'linux-x64': '/usr/bin/x' } } }), 'runtime.executables.linux-x64'],
    ['executable windows-absolute', manifest({ runtime: { type: 'binary', executables: { any: 'C:\\x.exe' } } }), 'runtime.executables.any'],
    ['executable with ..', manifest({ runtime: { type: 'binary', executables: { any: 'bin/../../x' } } }), 'runtime.executables.any'],
    ['executable just ..', manifest({ runtime: { type: 'binary', executables: { any: '..' } } }), 'runtime.executables.any'],
    ['executable with backslash ..', manifest({ runtime: { type: 'binary', executables: { any: 'bin\\..\\..\\x' } } }), 'runtime.executables.any'],
    ['executable empty', manifest({ runtime: { type: 'binary', executables: { any: '' } } }), 'runtime.executables.any'],
    ['executable not text', manifest({ runtime: { type: 'binary', executables: { any: 3 } } }), 'runtime.executables.any'],
    ['runtime.args not a list', manifest({ runtime: { type: 'binary', executables: { any: 'x' }, args: '--a' } }), 'runtime.args'],
    ['runtime.args entry not text', manifest({ runtime: { type: 'binary', executables: { any: 'x' }, args: ['a', 2] } }), 'runtime.args[1]'],
    ['capabilities a list', manifest({ capabilities: ['x'] }), 'capabilities'],
    ['agent_tools not a list', manifest({ agent_tools: { a: 1 } }), 'agent_tools'],
    ['17 agent tools', manifest({ agent_tools: Array.from({ length: 17 }, (_, i) => toolEntry({ name: `t${i}` })) }), 'agent_tools'],
    ['agent tool not a mapping', manifest({ agent_tools: ['add_tag'] }), 'agent_tools[0]'],
    ['tool name missing', manifest({}, { name: undefined as never }), 'agent_tools[0].name'],
    ['tool name with -', manifest({}, { name: 'add-tag' }), 'agent_tools[0].name'],
    ['tool name upper case', manifest({}, { name: 'Add' }), 'agent_tools[0].name'],
    ['tool name starting with _', manifest({}, { name: '_add' }), 'agent_tools[0].name'],
    ['tool name of 33 chars', manifest({}, { name: 'a'.repeat(33) }), 'agent_tools[0].name'],
    ['duplicate tool name', manifest({ agent_tools: [toolEntry(), toolEntry()] }), 'agent_tools[1].name'],
    ['title over 128 bytes', manifest({}, { title: 'é'.repeat(65) }), 'agent_tools[0].title'],
    ['title not text', manifest({}, { title: 3 }), 'agent_tools[0].title'],
    ['description missing', manifest({}, { description: undefined as never }), 'agent_tools[0].description'],
    ['description empty', manifest({}, { description: '' }), 'agent_tools[0].description'],
    ['description blank', manifest({}, { description: ' \n\t ' }), 'agent_tools[0].description'],
    ['description over 1024 bytes', manifest({}, { description: 'é'.repeat(513) }), 'agent_tools[0].description'],
    ['surfaces missing', manifest({}, { surfaces: undefined as never }), 'agent_tools[0].surfaces'],
    ['surfaces empty', manifest({}, { surfaces: [] }), 'agent_tools[0].surfaces'],
    ['surfaces not a list', manifest({}, { surfaces: 'kanban-task' }), 'agent_tools[0].surfaces'],
    ['surface configuration', manifest({}, { surfaces: ['configuration'] }), 'agent_tools[0].surfaces[0]'],
    ['surface external', manifest({}, { surfaces: ['kanban-task', 'external'] }), 'agent_tools[0].surfaces[1]'],
    ['duplicate surface', manifest({}, { surfaces: ['kanban-task', 'kanban-task'] }), 'agent_tools[0].surfaces[1]'],
    ['input_schema missing', manifest({}, { input_schema: undefined as never }), 'agent_tools[0].input_schema'],
    ['input_schema not a mapping', manifest({}, { input_schema: 'object' }), 'agent_tools[0].input_schema'],
    ['input_schema root type string', manifest({}, { input_schema: { type: 'string' } }), 'agent_tools[0].input_schema'],
    ['input_schema without root type', manifest({}, { input_schema: { properties: {} } }), 'agent_tools[0].input_schema'],
    ['input_schema that does not compile', manifest({}, { input_schema: { type: 'object', minProperties: 'x' } }), 'agent_tools[0].input_schema'],
    [
      'input_schema with a draft-04 $schema',
      manifest({}, { input_schema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } }),
      'agent_tools[0].input_schema',
    ],
    ['input_schema with a remote $ref', manifest({}, { input_schema: { type: 'object', $ref: 'https://example.com/s.json' } }), 'agent_tools[0].input_schema'],
    ['input_schema over 65536 bytes', manifest({}, { input_schema: bigSchema }), 'agent_tools[0].input_schema'],
    ['output_schema root type array', manifest({}, { output_schema: { type: 'array' } }), 'agent_tools[0].output_schema'],
    ['output_schema that does not compile', manifest({}, { output_schema: { type: 'object', required: 'x' } }), 'agent_tools[0].output_schema'],
    ['output_schema over 65536 bytes', manifest({}, { output_schema: bigSchema }), 'agent_tools[0].output_schema'],
    ['annotations not a mapping', manifest({}, { annotations: 'read-only' }), 'agent_tools[0].annotations'],
    ['annotation not a boolean', manifest({}, { annotations: { idempotent_hint: 'yes' } }), 'agent_tools[0].annotations.idempotent_hint'],
  ];

  it.each(cases.map(([label, value, path]) => [label, path, value] as const))('%s → a violation at %s', (_label, path, value) => {
    expect(paths(value)).toEqual([path]);
  });

  it('reports an unsupported surface with the documented message', () => {
    const tools = [toolEntry({ name: 'a' }), toolEntry({ name: 'b' }), toolEntry({ name: 'c', surfaces: ['configuration'] })];
    expect(violationsOf(manifest({ agent_tools: tools }))).toEqual([{ path: 'agent_tools[2].surfaces[0]', message: 'unsupported surface "configuration"' }]);
  });

  it('counts a schema of exactly 65536 bytes as within the limit', () => {
    const base = JSON.stringify({ type: 'object', description: '' }).length;
    const schema = { type: 'object', description: 'x'.repeat(65536 - base) };
    expect(JSON.stringify(schema).length).toBe(65536);
    expect(violationsOf(manifest({}, { input_schema: schema }))).toEqual([]);
  });

  it('counts a schema of 65537 bytes (multi-byte characters as bytes) as over the limit', () => {
    const base = JSON.stringify({ type: 'object', description: '' }).length;
    const schema = { type: 'object', description: 'x'.repeat(65537 - base - 2) + 'é' };
    expect(JSON.stringify(schema).length).toBe(65536);
    expect(violationsOf(manifest({}, { input_schema: schema }))).toEqual([
      { path: 'agent_tools[0].input_schema', message: expect.stringContaining('65537 bytes') },
    ]);
  });

  it('reports every violation at once', () => {
    const value = {
      api_version: 2,
      id: 'Bad!',
      version: 'one',
      agent_tools: [toolEntry({ name: 'X', surfaces: ['configuration'] }), 'not a tool'],
    };
    expect(paths(value).sort()).toEqual(
      ['agent_tools[0].name', 'agent_tools[0].surfaces[0]', 'agent_tools[1]', 'api_version', 'id', 'runtime.type', 'version'].sort(),
    );
  });

  it.each([
    ['null', null],
    ['a string', 'manifest'],
    ['a list', [1, 2]],
    ['a number', 42],
  ])('refuses a manifest that is %s at the root', (_label, value) => {
    expect(violationsOf(value)).toEqual([{ path: '(root)', message: expect.stringContaining('mapping') }]);
  });
});

describe('validateManifest: never throws (property)', () => {
  it('always returns a manifest or violations for arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = validateManifest(value, options);
        expect(result.ok ? result.manifest : result.violations.length).toBeTruthy();
      }),
      { numRuns: 300 },
    );
  });

  it('always returns a manifest or violations for arbitrary values, including inside a manifest', () => {
    const withAnything = fc.record(
      {
        api_version: fc.oneof(fc.constant(1), fc.anything()),
        id: fc.oneof(fc.constant('acme'), fc.anything()),
        version: fc.oneof(fc.constant('1.0.0'), fc.anything()),
        runtime: fc.anything(),
        capabilities: fc.anything(),
        agent_tools: fc.array(
          fc.record(
            {
              name: fc.oneof(fc.constant('run'), fc.anything()),
              description: fc.anything(),
              surfaces: fc.oneof(fc.constant(['kanban-task']), fc.anything()),
              input_schema: fc.oneof(fc.constant({ type: 'object' }), fc.anything()),
              output_schema: fc.anything(),
              annotations: fc.anything(),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), withAnything), (value) => {
        const result = validateManifest(value, options);
        expect(result.ok ? result.manifest : result.violations.length).toBeTruthy();
        if (!result.ok) {
          for (const violation of result.violations) {
            expect(typeof violation.path).toBe('string');
            expect(typeof violation.message).toBe('string');
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('does not throw on a cyclic schema', () => {
    const schema: Record<string, unknown> = { type: 'object' };
    schema.self = schema;
    expect(paths(manifest({}, { input_schema: schema as JsonObject }))).toEqual(['agent_tools[0].input_schema']);
  });
});

describe('validateManifest: config_schema and the granting capabilities', () => {
  it('keeps a valid config_schema and capabilities.state / secrets as declared', () => {
    const config_schema = { type: 'object', properties: { api_token: { type: 'string', writeOnly: true } }, required: ['api_token'] };
    const result = validateManifest(manifest({ config_schema, capabilities: { state: true, secrets: false } }), options);
    expect(result.ok && result.manifest.config_schema).toEqual(config_schema);
    expect(result.ok && result.manifest.capabilities).toEqual({ state: true, secrets: false });
  });

  it('holds config_schema to the input_schema rules: object root, compiles, at most 65536 bytes', () => {
    expect(violationsOf(manifest({ config_schema: { type: 'string' } }))).toEqual([{ path: 'config_schema', message: 'root "type" must be "object"' }]);
    expect(paths(manifest({ config_schema: { type: 'object', properties: { a: { type: 'nonsense' } } } }))).toEqual(['config_schema']);
    expect(paths(manifest({ config_schema: [1] }))).toEqual(['config_schema']);
    const huge = { type: 'object', description: 'x'.repeat(65536) };
    expect(violationsOf(manifest({ config_schema: huge }))[0]?.message).toMatch(/more than 65536/);
  });

  it('refuses a granting capability that is not a boolean, naming it', () => {
    expect(paths(manifest({ capabilities: { state: 'yes', secrets: 1, other: 'anything' } }))).toEqual(['capabilities.state', 'capabilities.secrets']);
  });
});
