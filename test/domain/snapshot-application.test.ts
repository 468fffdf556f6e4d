import fc from 'fast-check';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import type { CatalogSnapshot, CatalogTool } from '../../src/domain/catalog';
import { compareGenerations } from '../../src/domain/catalog-revisions';
import type { JsonObject } from '../../src/domain/json';
import { exposedToolName } from '../../src/domain/naming';
import { type AppliedState, checkSnapshot, decideSnapshot, sameVisibleTools, toolsForSurface } from '../../src/domain/snapshot-application';
import type { ToolSurface } from '../../src/domain/surfaces';

const schemas = new AjvSchemaCompiler();
const GEN = '000000000003-0a1b2c3d';

/** A tool as it arrives on the wire: any field may be wrong or missing, so it is plain JSON. */
function wireTool(pluginId: string, local: string, overrides: JsonObject = {}): JsonObject {
  return { ...(catalogTool(pluginId, local) as unknown as JsonObject), ...overrides };
}

function wireSnapshot(tools: JsonObject[], overrides: JsonObject = {}): JsonObject {
  return { generation: GEN, revision: 2, tools, ...overrides };
}

function catalogTool(pluginId: string, local: string, surfaces: ToolSurface[] = ['kanban-task'], extra: Partial<CatalogTool> = {}): CatalogTool {
  return {
    plugin_id: pluginId,
    plugin_version: '1.0.0',
    local_name: local,
    exposed_name: exposedToolName('kandev', pluginId, local),
    description: 'does it',
    surfaces,
    input_schema: { type: 'object' },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
    ...extra,
  };
}

function snapshot(generation: string, revision: number, tools: CatalogTool[]): CatalogSnapshot {
  return { generation, revision, tools };
}

function violationPaths(value: unknown, prefix = 'kandev'): string[] {
  const result = checkSnapshot(value, prefix, schemas);
  return result.ok ? [] : result.violations.map((v) => v.path);
}

describe('checkSnapshot', () => {
  it('accepts a well-formed snapshot and returns it normalised (sorted, unknown fields dropped)', () => {
    const result = checkSnapshot(
      wireSnapshot([wireTool('zeta', 'run', { surfaces: ['office-task', 'kanban-task'], extra: 1 }), wireTool('alpha', 'run', { title: 'Run' })], {
        extra: true,
      }),
      'kandev',
      schemas,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.snapshot)).toEqual(['generation', 'revision', 'tools']);
    expect(result.snapshot.tools.map((t) => t.exposed_name)).toEqual(['kandev_alpha_run', 'kandev_zeta_run']);
    expect(result.snapshot.tools[1].surfaces).toEqual(['kanban-task', 'office-task']);
    expect(result.snapshot.tools[1]).not.toHaveProperty('extra');
    expect(result.snapshot.tools[0].title).toBe('Run');
  });

  it('accepts an empty tools list', () => {
    expect(checkSnapshot(wireSnapshot([]), 'kandev', schemas)).toEqual({ ok: true, snapshot: { generation: GEN, revision: 2, tools: [] } });
  });

  it('checks exposed names under the given prefix', () => {
    const tool = wireTool('acme', 'run', { exposed_name: 'other_acme_run' });
    expect(violationPaths(wireSnapshot([tool]), 'other')).toEqual([]);
    expect(violationPaths(wireSnapshot([tool]), 'kandev')).toEqual(['tools[0].exposed_name']);
  });

  const malformed: Array<[string, unknown, string]> = [
    ['not an object', 'snapshot', '(root)'],
    ['null', null, '(root)'],
    ['generation missing', wireSnapshot([], { generation: undefined as never }), 'generation'],
    ['generation empty', wireSnapshot([], { generation: '' }), 'generation'],
    ['generation without suffix', wireSnapshot([], { generation: '000000000003' }), 'generation'],
    ['generation with 11 digits', wireSnapshot([], { generation: '00000000003-0a1b2c3d' }), 'generation'],
    ['generation upper-case hex', wireSnapshot([], { generation: '000000000003-0A1B2C3D' }), 'generation'],
    ['revision 0', wireSnapshot([], { revision: 0 }), 'revision'],
    ['revision -1', wireSnapshot([], { revision: -1 }), 'revision'],
    ['revision 1.5', wireSnapshot([], { revision: 1.5 }), 'revision'],
    ['revision as text', wireSnapshot([], { revision: '2' }), 'revision'],
    ['tools missing', wireSnapshot([], { tools: undefined as never }), 'tools'],
    ['tools null', wireSnapshot([], { tools: null }), 'tools'],
    ['tool not an object', wireSnapshot(['x' as never]), 'tools[0]'],
    ['exposed name not the derivation', wireSnapshot([wireTool('acme', 'run', { exposed_name: 'kandev_acme_walk' })]), 'tools[0].exposed_name'],
    [
      'exposed name hashed wrongly',
      wireSnapshot([wireTool('a'.repeat(60), 'run', { exposed_name: 'kandev_' + 'a'.repeat(60) + '_run' })]),
      'tools[0].exposed_name',
    ],
    ['duplicate exposed name', wireSnapshot([wireTool('acme', 'run'), wireTool('acme', 'run')]), 'tools[1].exposed_name'],
    ['built-in name', wireSnapshot([wireTool('task', 'context', { exposed_name: 'get_task_context' })]), 'tools[0].exposed_name'],
    ['bad surface', wireSnapshot([wireTool('acme', 'run', { surfaces: ['configuration'] })]), 'tools[0].surfaces[0]'],
    ['duplicate surface', wireSnapshot([wireTool('acme', 'run', { surfaces: ['kanban-task', 'kanban-task'] })]), 'tools[0].surfaces[1]'],
    ['no surfaces', wireSnapshot([wireTool('acme', 'run', { surfaces: [] })]), 'tools[0].surfaces'],
    ['input schema that does not compile', wireSnapshot([wireTool('acme', 'run', { input_schema: { type: 'object', required: 3 } })]), 'tools[0].input_schema'],
    ['input schema with non-object root', wireSnapshot([wireTool('acme', 'run', { input_schema: { type: 'string' } })]), 'tools[0].input_schema'],
    ['input schema missing', wireSnapshot([wireTool('acme', 'run', { input_schema: undefined as never })]), 'tools[0].input_schema'],
    ['output schema with non-object root', wireSnapshot([wireTool('acme', 'run', { output_schema: { type: 'array' } })]), 'tools[0].output_schema'],
    [
      'output schema that does not compile',
      wireSnapshot([wireTool('acme', 'run', { output_schema: { type: 'object', properties: 1 } })]),
      'tools[0].output_schema',
    ],
    ['bad local name', wireSnapshot([wireTool('acme', 'Run', { exposed_name: 'kandev_acme_Run' })]), 'tools[0].local_name'],
    ['description missing', wireSnapshot([wireTool('acme', 'run', { description: undefined as never })]), 'tools[0].description'],
    ['annotation not a boolean', wireSnapshot([wireTool('acme', 'run', { annotations: { read_only_hint: 'no' } })]), 'tools[0].annotations.read_only_hint'],
  ];

  it.each(malformed.map(([label, value, path]) => [label, path, value] as const))('%s is malformed at %s', (_label, path, value) => {
    expect(violationPaths(value)).toEqual([path]);
  });

  it('never throws on arbitrary input (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.record({ generation: fc.anything(), revision: fc.anything(), tools: fc.array(fc.anything(), { maxLength: 3 }) })),
        (value) => {
          const result = checkSnapshot(value, 'kandev', schemas);
          expect(result.ok ? result.snapshot : result.violations.length).toBeTruthy();
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('toolsForSurface', () => {
  const snap = snapshot(GEN, 2, [
    catalogTool('a', 'k', ['kanban-task']),
    catalogTool('a', 'o', ['office-task']),
    catalogTool('a', 'both', ['kanban-task', 'office-task']),
  ]);

  it.each([
    ['kanban-task', ['kandev_a_k', 'kandev_a_both']],
    ['office-task', ['kandev_a_o', 'kandev_a_both']],
    ['configuration', []],
    ['external', []],
  ] as const)('a %s session sees %j', (surface, names) => {
    expect(
      toolsForSurface(snap, surface)
        .map((t) => t.exposed_name)
        .sort(),
    ).toEqual([...names].sort());
  });
});

describe('what counts as a change of the visible tools', () => {
  const base = snapshot(GEN, 2, [catalogTool('a', 'k', ['kanban-task']), catalogTool('a', 'o', ['office-task'])]);
  const heldOn = (surface: 'kanban-task' | 'office-task'): AppliedState => {
    const decision = decideSnapshot(null, base, surface);
    if (decision.outcome === 'stale') throw new Error('unexpected stale');
    return decision.state;
  };

  it('stays when only another surface changes', () => {
    const officeChanged = snapshot(GEN, 3, [catalogTool('a', 'k', ['kanban-task']), catalogTool('a', 'o', ['office-task'], { description: 'new' })]);
    expect(decideSnapshot(heldOn('kanban-task'), officeChanged, 'kanban-task').outcome).toBe('unchanged');
    expect(decideSnapshot(heldOn('office-task'), officeChanged, 'office-task').outcome).toBe('applied');
  });

  it.each<[string, Partial<CatalogTool>]>([
    ['description', { description: 'other' }],
    ['title', { title: 'T' }],
    ['input schema', { input_schema: { type: 'object', required: ['x'] } }],
    ['output schema', { output_schema: { type: 'object' } }],
    ['annotations', { annotations: { read_only_hint: true, destructive_hint: false, idempotent_hint: false, open_world_hint: true } }],
    ['plugin version', { plugin_version: '1.0.1' }],
  ])('changes when a visible tool’s %s changes', (_label, change) => {
    const changed = snapshot(GEN, 3, [catalogTool('a', 'k', ['kanban-task'], change), catalogTool('a', 'o', ['office-task'])]);
    const held = heldOn('kanban-task');
    const decision = decideSnapshot(held, changed, 'kanban-task');
    expect(decision.outcome).toBe('applied');
    expect(decision.outcome !== 'stale' && decision.state.fingerprint).not.toBe(held.fingerprint);
  });

  it('ignores the generation, the revision and the tool order', () => {
    const moved = snapshot('000000000009-ffffffff', 40, [...base.tools].reverse());
    const held = heldOn('kanban-task');
    expect(decideSnapshot(held, moved, 'kanban-task')).toMatchObject({ outcome: 'unchanged', state: { fingerprint: held.fingerprint } });
  });

  it('compares equal tools of different objects by their listing, and kept ones by identity', () => {
    const [k, o] = base.tools;
    expect(sameVisibleTools([k!, o!], [k!, o!])).toBe(true);
    expect(sameVisibleTools([k!], [catalogTool('a', 'k', ['kanban-task'])])).toBe(true);
    expect(sameVisibleTools([k!], [catalogTool('a', 'k', ['kanban-task'], { description: 'x' })])).toBe(false);
    // Its surfaces are not shown (the session sees it either way); its plugin's version is.
    expect(sameVisibleTools([k!], [catalogTool('a', 'k', ['kanban-task', 'office-task'])])).toBe(true);
    expect(sameVisibleTools([k!], [catalogTool('a', 'k', ['kanban-task'], { plugin_version: '1.0.1' })])).toBe(false);
    expect(sameVisibleTools([k!, o!], [k!])).toBe(false);
  });
});

describe('decideSnapshot', () => {
  const tools = [catalogTool('a', 'k', ['kanban-task']), catalogTool('a', 'o', ['office-task'])];
  const applied = (snap: CatalogSnapshot): AppliedState => {
    const decision = decideSnapshot(null, snap, 'kanban-task');
    if (decision.outcome === 'stale') throw new Error('unexpected stale');
    return decision.state;
  };
  const state = applied(snapshot(GEN, 5, tools));

  it.each([
    ['a lower generation', snapshot('000000000002-ffffffff', 99, tools)],
    ['the same revision', snapshot(GEN, 5, tools)],
    ['a lower revision', snapshot(GEN, 4, [])],
  ])('is stale for %s', (_label, incoming) => {
    expect(decideSnapshot(state, incoming, 'kanban-task')).toEqual({ outcome: 'stale' });
  });

  it('is applied when this session’s visible tools changed, advancing the revision', () => {
    const decision = decideSnapshot(state, snapshot(GEN, 6, [tools[1]]), 'kanban-task');
    expect(decision.outcome).toBe('applied');
    expect(decision.outcome !== 'stale' && decision.state).toMatchObject({ generation: GEN, revision: 6 });
  });

  it('is unchanged (but advances the revision) when only another surface changed', () => {
    const decision = decideSnapshot(state, snapshot(GEN, 6, [tools[0]]), 'kanban-task');
    expect(decision).toEqual({ outcome: 'unchanged', state: { ...state, revision: 6 } });
  });

  it('accepts a newer generation even with a lower revision', () => {
    const decision = decideSnapshot(state, snapshot('000000000004-00000000', 1, tools), 'kanban-task');
    expect(decision).toEqual({ outcome: 'unchanged', state: { ...state, generation: '000000000004-00000000', revision: 1, visible: expect.any(Array) } });
  });

  it('with nothing applied yet, is applied when tools are visible and unchanged when none are', () => {
    expect(decideSnapshot(null, snapshot(GEN, 1, tools), 'kanban-task').outcome).toBe('applied');
    expect(decideSnapshot(null, snapshot(GEN, 1, tools), 'configuration').outcome).toBe('unchanged');
    expect(decideSnapshot(null, snapshot(GEN, 1, []), 'kanban-task').outcome).toBe('unchanged');
  });

  it('ends on the highest generation and revision for any order of delivery, with duplicates (property)', () => {
    const gens = ['000000000001-aaaaaaaa', '000000000002-00000000', '000000000010-11111111'];
    const snapArb = fc.record({
      generation: fc.constantFrom(...gens),
      revision: fc.integer({ min: 1, max: 6 }),
      tools: fc.subarray(tools),
    });
    const setAndDeliveries = fc
      .array(snapArb, { minLength: 1, maxLength: 12 })
      .chain((set) => fc.tuple(fc.constant(set), fc.shuffledSubarray([...set, ...set], { minLength: set.length * 2 })));
    fc.assert(
      fc.property(setAndDeliveries, ([set, deliveries]) => {
        let current: AppliedState | null = null;
        for (const incoming of deliveries) {
          const decision = decideSnapshot(current, incoming, 'kanban-task');
          if (decision.outcome !== 'stale') current = decision.state;
        }
        const highest = [...set].sort((a, b) => compareGenerations(a.generation, b.generation) || a.revision - b.revision).at(-1)!;
        expect(current).not.toBeNull();
        expect(current!.generation).toBe(highest.generation);
        expect(current!.revision).toBe(highest.revision);
      }),
      { numRuns: 200 },
    );
  });
});
