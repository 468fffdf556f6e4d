import fc from 'fast-check';
import type { CatalogTool } from '../../src/domain/catalog';
import { catalogTools, compareGenerations, formatGeneration, initialCatalogState, offerCatalog } from '../../src/domain/catalog-revisions';
import { DEFAULT_POLICY, DEFAULT_PROFILE, policyOf } from '../../src/domain/scopes';
import { record, tool } from './fixtures';

function catalogTool(exposed: string, overrides: Partial<CatalogTool> = {}): CatalogTool {
  return {
    plugin_id: 'p',
    plugin_version: '1.0.0',
    local_name: exposed,
    exposed_name: exposed,
    description: 'd',
    surfaces: ['kanban-task'],
    input_schema: { type: 'object' },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
    ...overrides,
  };
}

describe('generations', () => {
  it('formats the 12-digit boot counter, a dash and 8 hex digits', () => {
    expect(formatGeneration(7, '9f3a1c2e')).toBe('000000000007-9f3a1c2e');
    expect(formatGeneration(999999999999, '00000000')).toBe('999999999999-00000000');
  });

  it.each([
    [-1, '9f3a1c2e'],
    [1e12, '9f3a1c2e'],
    [1.5, '9f3a1c2e'],
    [1, '9F3A1C2E'],
    [1, 'abc'],
  ])('refuses counter %s with suffix %s', (counter, hex) => {
    expect(() => formatGeneration(counter, hex)).toThrow(RangeError);
  });

  it('orders by the boot counter first, whatever the random suffix', () => {
    expect(compareGenerations('000000000007-ffffffff', '000000000008-00000000')).toBeLessThan(0);
    expect(compareGenerations('000000000010-00000000', '000000000009-ffffffff')).toBeGreaterThan(0);
  });

  it('orders by text when the counters are equal, and 0 only for the same generation', () => {
    expect(compareGenerations('000000000007-00000001', '000000000007-00000002')).toBeLessThan(0);
    expect(compareGenerations('000000000007-9f3a1c2e', '000000000007-9f3a1c2e')).toBe(0);
  });

  it('orders starts like their boot counters (property)', () => {
    const hex8 = fc.stringMatching(/^[0-9a-f]{8}$/);
    fc.assert(
      fc.property(fc.nat({ max: 999999999999 }), fc.nat({ max: 999999999999 }), hex8, hex8, (a, b, ha, hb) => {
        fc.pre(a !== b);
        expect(Math.sign(compareGenerations(formatGeneration(a, ha), formatGeneration(b, hb)))).toBe(Math.sign(a - b));
      }),
      { numRuns: 200 },
    );
  });
});

describe('catalogTools', () => {
  it('lists only active plugins’ tools, sorted by exposed name, surfaces sorted', () => {
    const tools = catalogTools(
      [
        record('zeta', [tool({ name: 'b' }), tool({ name: 'a', surfaces: ['office-task', 'kanban-task'] as never })], { version: '2.0.0' }),
        record('alpha', [tool({ name: 'x' })]),
        record('off', [tool()], { status: 'disabled' }),
        record('broken', [tool()], { status: 'error' }),
        record('new', [tool()], { status: 'registered' }),
      ],
      'kandev',
    );
    expect(tools.map((t) => t.exposed_name)).toEqual(['kandev_alpha_x', 'kandev_zeta_a', 'kandev_zeta_b']);
    expect(tools[1].surfaces).toEqual(['kanban-task', 'office-task']);
    expect(tools[1]).toMatchObject({ plugin_id: 'zeta', plugin_version: '2.0.0', local_name: 'a' });
  });

  it('omits absent optional fields and keeps present ones', () => {
    const [bare, full] = catalogTools([record('p', [tool({ name: 'a' }), tool({ name: 'b', title: 'B', output_schema: { type: 'object' } })])], 'kandev');
    expect(Object.keys(bare)).not.toContain('title');
    expect(Object.keys(bare)).not.toContain('output_schema');
    expect(full.title).toBe('B');
    expect(full.output_schema).toEqual({ type: 'object' });
  });

  it('is [] (never null) when no plugin is active', () => {
    expect(catalogTools([record('p', [tool()], { status: 'disabled' })], 'kandev')).toEqual([]);
  });

  it('uses the prefix setting', () => {
    expect(catalogTools([record('p', [tool()])], 'acme')[0].exposed_name).toBe('acme_p_run');
  });
});

describe('offerCatalog', () => {
  /** Offers each list in turn from a new generation `g`, as the store would keep the state. */
  function offers(...lists: CatalogTool[][]) {
    let state = initialCatalogState('g');
    return lists.map((tools) => {
      const outcome = offerCatalog(state, tools);
      state = outcome.state;
      return outcome;
    });
  }

  it('starts a generation at revision 1 with no tools', () => {
    const state = initialCatalogState('000000000001-abcdef01');
    expect(state).toEqual({ generation: '000000000001-abcdef01', revision: 1, contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(offerCatalog(state, []).snapshot).toEqual({ generation: '000000000001-abcdef01', revision: 1, tools: [] });
  });

  it('rises by exactly one per content change', () => {
    const outcomes = offers([catalogTool('a')], [catalogTool('a'), catalogTool('b')], [catalogTool('a', { description: 'other' }), catalogTool('b')], []);
    expect(outcomes.map((o) => [o.changed, o.snapshot.revision])).toEqual([
      [true, 2],
      [true, 3],
      [true, 4],
      [true, 5],
    ]);
    expect(outcomes[3].snapshot.tools).toEqual([]);
  });

  it('does not rise for an equivalent recomputation: any order of tools, surfaces or keys', () => {
    const reordered = catalogTool('a', { surfaces: ['office-task', 'kanban-task'], input_schema: { type: 'object' } });
    const [, second] = offers([catalogTool('a', { surfaces: ['kanban-task', 'office-task'] }), catalogTool('b')], [catalogTool('b'), reordered]);
    expect(second).toMatchObject({ changed: false, snapshot: { revision: 2 } });
  });

  it('does not rise when offered an empty list first', () => {
    expect(offers([])[0]).toMatchObject({ changed: false, snapshot: { revision: 1 } });
  });

  it('resumes from a stored state: the same content keeps its revision, another raises it', () => {
    const [first] = offers([catalogTool('a')]);
    const stored = { ...first.state };
    expect(offerCatalog(stored, [catalogTool('a')])).toMatchObject({ changed: false, snapshot: { revision: 2 } });
    expect(offerCatalog(stored, [catalogTool('b')])).toMatchObject({ changed: true, snapshot: { revision: 3 } });
  });

  it('stores tools sorted by exposed name with surfaces sorted', () => {
    const [{ snapshot }] = offers([catalogTool('b'), catalogTool('a', { surfaces: ['office-task', 'kanban-task'] })]);
    expect(snapshot.tools.map((t) => t.exposed_name)).toEqual(['a', 'b']);
    expect(snapshot.tools[0].surfaces).toEqual(['kanban-task', 'office-task']);
  });

  it('gives strictly increasing revisions for distinct contents in any interleaving (property)', () => {
    const contents = fc.array(fc.subarray(['a', 'b', 'c', 'd']), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(contents, (lists) => {
        let state = initialCatalogState('g');
        const seen = new Map<string, number>();
        let previousKey = '';
        for (const names of lists) {
          const key = [...names].sort().join(',');
          const outcome = offerCatalog(state, names.map((name) => catalogTool(name)).reverse());
          expect(outcome.changed).toBe(key !== previousKey);
          expect(outcome.snapshot.revision).toBe(state.revision + (outcome.changed ? 1 : 0));
          if (outcome.changed) seen.set(`${key}@${outcome.snapshot.revision}`, outcome.snapshot.revision);
          previousKey = key;
          state = outcome.state;
        }
        const revisionsSeen = [...seen.values()];
        expect(new Set(revisionsSeen).size).toBe(revisionsSeen.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('offerCatalog under a policy (docs/catalog-and-sessions.md, "Scopes")', () => {
  const tools = [catalogTool('a')];
  const reviewer = policyOf([], [{ name: 'reviewer', include: ['*'], exclude: ['a'] }]);

  it('keeps the hash of the tools alone while no scope or profile is set', () => {
    const state = offerCatalog(initialCatalogState('g'), tools).state;
    expect(offerCatalog(state, tools, DEFAULT_POLICY)).toMatchObject({ changed: false, snapshot: { revision: 2 } });
    expect(offerCatalog(state, tools, policyOf([], [DEFAULT_PROFILE]))).toMatchObject({ changed: false });
  });

  it('rises by exactly one for a policy change even when the tools stay, and not again for the same policy', () => {
    const state = offerCatalog(initialCatalogState('g'), tools).state;
    const changed = offerCatalog(state, tools, reviewer);
    expect(changed).toMatchObject({ changed: true, snapshot: { revision: 3, tools: [expect.objectContaining({ exposed_name: 'a' })] } });
    expect(offerCatalog(changed.state, tools, policyOf([], [{ name: 'reviewer', include: ['*', '*'], exclude: ['a'] }]))).toMatchObject({ changed: false });
    const scoped = offerCatalog(
      changed.state,
      tools,
      policyOf([['p', { workspaces: ['w1'], disabled_tools: {} }]], [{ name: 'reviewer', include: ['*'], exclude: ['a'] }]),
    );
    expect(scoped).toMatchObject({ changed: true, snapshot: { revision: 4 } });
  });

  it('counts a policy set back to the default as a change too', () => {
    const state = offerCatalog(offerCatalog(initialCatalogState('g'), tools).state, tools, reviewer).state;
    expect(offerCatalog(state, tools, DEFAULT_POLICY)).toMatchObject({ changed: true, snapshot: { revision: 4 } });
  });
});
