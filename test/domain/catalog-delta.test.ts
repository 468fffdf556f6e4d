import fc from 'fast-check';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import type { CatalogSnapshot, CatalogTool } from '../../src/domain/catalog';
import { catalogDelta, expandDelta, isDeltaPayload, toolContentHash } from '../../src/domain/catalog-delta';
import { exposedToolName } from '../../src/domain/naming';
import { checkSnapshot } from '../../src/domain/snapshot-application';

const schemas = new AjvSchemaCompiler();
const GEN = '000000000003-0a1b2c3d';

function tool(local: string, description = 'does it'): CatalogTool {
  return {
    plugin_id: 'acme',
    plugin_version: '1.0.0',
    local_name: local,
    exposed_name: exposedToolName('kandev', 'acme', local),
    description,
    surfaces: ['kanban-task'],
    input_schema: { type: 'object', properties: { v: { type: 'string' } } },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
  };
}

/** A snapshot as agentctl holds it: the checked value of a wire snapshot. */
function held(revision: number, tools: CatalogTool[]): CatalogSnapshot {
  const check = checkSnapshot(JSON.parse(JSON.stringify({ generation: GEN, revision, tools })), 'kandev', schemas);
  if (!check.ok) throw new Error(JSON.stringify(check.violations));
  return check.snapshot;
}

/** What goes over the wire: the delta in its snake_case form, through JSON. */
function wire(from: CatalogSnapshot, to: CatalogSnapshot): unknown {
  const delta = catalogDelta(from, to)!;
  return JSON.parse(
    JSON.stringify({ generation: delta.generation, revision: delta.revision, base_revision: delta.baseRevision, upsert: delta.upsert, remove: delta.remove }),
  );
}

describe('catalogDelta', () => {
  it('sends only the tools whose content changed, and the names that went', () => {
    const from = held(4, [tool('a'), tool('b'), tool('c')]);
    const to = held(5, [tool('a'), tool('b', 'changed'), tool('d')]);
    const delta = catalogDelta(from, to)!;
    expect(delta).toMatchObject({ generation: GEN, revision: 5, baseRevision: 4, remove: [tool('c').exposed_name] });
    expect(delta.upsert.map((t) => t.exposed_name).sort()).toEqual([tool('b').exposed_name, tool('d').exposed_name].sort());
  });

  it('keys tools by a content hash that is stable for equal content', () => {
    expect(toolContentHash(tool('a'))).toBe(toolContentHash(tool('a')));
    expect(toolContentHash(tool('a'))).not.toBe(toolContentHash(tool('a', 'other')));
  });

  it('has none across generations or backwards', () => {
    expect(catalogDelta(held(4, []), { generation: '000000000004-00000000', revision: 5, tools: [] })).toBeUndefined();
    expect(catalogDelta(held(4, []), held(4, []))).toBeUndefined();
  });
});

describe('expandDelta', () => {
  const from = held(4, [tool('a'), tool('b')]);
  const to = held(5, [tool('a'), tool('b', 'changed'), tool('c')]);

  it('rebuilds the full snapshot: the same check result as the full one, kept tools the held objects', () => {
    const expansion = expandDelta(from, wire(from, to));
    expect(expansion.kind).toBe('snapshot');
    if (expansion.kind !== 'snapshot') return;
    const check = checkSnapshot(expansion.value, 'kandev', schemas, from);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.snapshot).toEqual(to);
    expect(check.snapshot.tools.find((t) => t.local_name === 'a')).toBe(from.tools.find((t) => t.local_name === 'a'));
  });

  it('is stale when it is not newer than what is held', () => {
    expect(expandDelta(to, wire(from, to))).toEqual({ kind: 'stale' });
  });

  it('needs the full snapshot when built on another revision or generation, or when nothing is held', () => {
    const other = held(3, [tool('a')]);
    expect(expandDelta(other, wire(from, to))).toEqual({ kind: 'base_mismatch' });
    expect(expandDelta(null, wire(from, to))).toEqual({ kind: 'base_mismatch' });
    const removesUnknown = { ...(wire(from, to) as object), remove: ['kandev_acme_never_held'] };
    expect(expandDelta(from, removesUnknown)).toEqual({ kind: 'base_mismatch' });
  });

  it.each([
    ['no generation', { revision: 5, base_revision: 4, upsert: [], remove: [] }],
    ['a base not below the revision', { generation: GEN, revision: 5, base_revision: 5, upsert: [], remove: [] }],
    ['upsert not a list', { generation: GEN, revision: 5, base_revision: 4, upsert: {}, remove: [] }],
    ['remove with a number', { generation: GEN, revision: 5, base_revision: 4, upsert: [], remove: [3] }],
  ])('is malformed with %s', (_label, value) => {
    expect(expandDelta(from, value)).toMatchObject({ kind: 'malformed', violations: [expect.objectContaining({ path: expect.any(String) })] });
  });

  it('tells a delta payload from a full snapshot', () => {
    expect(isDeltaPayload(wire(from, to))).toBe(true);
    expect(isDeltaPayload(to)).toBe(false);
  });

  it('gives the same snapshot as the full one for any pair of revisions (property)', () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const catalog = fc.uniqueArray(fc.record({ name: fc.constantFrom(...names), description: fc.constantFrom('x', 'y') }), { selector: (t) => t.name });
    fc.assert(
      fc.property(catalog, catalog, (before, after) => {
        const a = held(
          1,
          before.map((t) => tool(t.name, t.description)),
        );
        const b = held(
          2,
          after.map((t) => tool(t.name, t.description)),
        );
        const expansion = expandDelta(a, wire(a, b));
        expect(expansion.kind).toBe('snapshot');
        if (expansion.kind !== 'snapshot') return;
        const check = checkSnapshot(expansion.value, 'kandev', schemas, a);
        expect(check.ok && check.snapshot).toEqual(b);
      }),
      { numRuns: 150 },
    );
  });
});
