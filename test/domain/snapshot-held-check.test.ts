import type { CatalogSnapshot } from '../../src/domain/catalog';
import { exposedToolName } from '../../src/domain/naming';
import { checkSnapshot } from '../../src/domain/snapshot-application';
import { FakeSchemaCompiler } from './fixtures';

const GEN = '000000000003-0a1b2c3d';

function wireSnapshot(revision: number, inputSchema: object, outputSchema?: object): CatalogSnapshot {
  return JSON.parse(
    JSON.stringify({
      generation: GEN,
      revision,
      tools: [
        {
          plugin_id: 'acme.tools',
          plugin_version: '1.0.0',
          local_name: 'run',
          exposed_name: exposedToolName('kandev', 'acme.tools', 'run'),
          description: 'runs',
          surfaces: ['kanban-task'],
          input_schema: inputSchema,
          ...(outputSchema ? { output_schema: outputSchema } : {}),
          annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
        },
      ],
    }),
  ) as CatalogSnapshot;
}

function checked(value: unknown, schemas: FakeSchemaCompiler, held: CatalogSnapshot | null): CatalogSnapshot {
  const result = checkSnapshot(value, 'kandev', schemas, held);
  if (!result.ok) throw new Error(JSON.stringify(result.violations));
  return result.snapshot;
}

describe('checkSnapshot against the held snapshot', () => {
  const input = { type: 'object', properties: { a: { type: 'string' } } };
  const output = { type: 'object', properties: { b: { type: 'number' } } };

  it('keeps the held schema objects of an unchanged tool without checking them again', () => {
    const schemas = new FakeSchemaCompiler();
    const held = checked(wireSnapshot(1, input, output), schemas, null);
    expect(schemas.compiled).toBe(2);
    const next = checked(wireSnapshot(2, input, output), schemas, held);
    expect(schemas.compiled).toBe(2);
    expect(next.tools[0]!.input_schema).toBe(held.tools[0]!.input_schema);
    expect(next.tools[0]!.output_schema).toBe(held.tools[0]!.output_schema);
  });

  it('checks a changed schema, and refuses it when it does not compile', () => {
    const schemas = new FakeSchemaCompiler();
    const held = checked(wireSnapshot(1, input), schemas, null);
    const result = checkSnapshot(wireSnapshot(2, { ...input, 'x-broken': true }), 'kandev', schemas, held);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.violations).toEqual([{ path: 'tools[0].input_schema', message: 'does not compile: schema is broken' }]);
  });

  it('checks a schema whose keys only moved, and lists it as sent', () => {
    const schemas = new FakeSchemaCompiler();
    const held = checked(wireSnapshot(1, input), schemas, null);
    const reordered = { properties: input.properties, type: 'object' };
    const next = checked(wireSnapshot(2, reordered), schemas, held);
    expect(schemas.compiled).toBe(2);
    expect(Object.keys(next.tools[0]!.input_schema)).toEqual(['properties', 'type']);
  });

  it('keeps the held tool itself for an entry equal to the one it came from, and checks any change', () => {
    const schemas = new FakeSchemaCompiler();
    const held = checked(wireSnapshot(1, input, output), schemas, null);
    const same = checked(wireSnapshot(2, input, output), schemas, held);
    expect(same.tools[0]).toBe(held.tools[0]);

    const renamed = wireSnapshot(3, input, output);
    (renamed.tools[0] as { description: string }).description = 'runs faster';
    const next = checked(renamed, schemas, same);
    expect(next.tools[0]).not.toBe(held.tools[0]);
    expect(next.tools[0]!.description).toBe('runs faster');

    const badHint = wireSnapshot(4, input, output) as unknown as { tools: Array<{ annotations: Record<string, unknown> }> };
    badHint.tools[0]!.annotations.read_only_hint = 'yes';
    expect(checkSnapshot(badHint, 'kandev', schemas, held).ok).toBe(false);
  });

  it('checks an unchanged entry again under another prefix', () => {
    const schemas = new FakeSchemaCompiler();
    const held = checked(wireSnapshot(1, input), schemas, null);
    const result = checkSnapshot(wireSnapshot(2, input), 'other', schemas, held);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.violations.map((v) => v.path)).toEqual(['tools[0].exposed_name']);
  });
});
