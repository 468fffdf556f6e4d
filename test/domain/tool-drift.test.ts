import type { ImportedAgentTool } from '../../src/domain/mcp-tool-import';
import { autoAccept, toolDrift } from '../../src/domain/tool-drift';

function tool(name: string, extra: Partial<ImportedAgentTool> = {}): ImportedAgentTool {
  return {
    name,
    description: `Does ${name}.`,
    surfaces: ['kanban-task', 'office-task'],
    input_schema: { type: 'object', properties: { a: { type: 'string' } } },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
    server_name: name,
    ...extra,
  };
}

const safe = { read_only_hint: false, destructive_hint: false, idempotent_hint: false, open_world_hint: true };

describe('toolDrift', () => {
  it('is null when the import matches the pinned set', () => {
    expect(toolDrift([tool('a'), tool('b')], [tool('b'), tool('a')])).toBeNull();
  });

  it('ignores key order inside schemas and annotations', () => {
    const reordered = tool('a', {
      input_schema: { properties: { a: { type: 'string' } }, type: 'object' },
      annotations: { open_world_hint: true, idempotent_hint: false, destructive_hint: true, read_only_hint: false },
    });
    expect(toolDrift([tool('a')], [reordered])).toBeNull();
  });

  it('always gives all three lists, sorted by local name', () => {
    expect(toolDrift([tool('b'), tool('a')], [tool('b'), tool('a'), tool('d'), tool('c')])).toEqual({ added: ['c', 'd'], removed: [], changed: [] });
    expect(toolDrift([tool('z'), tool('y'), tool('k')], [tool('k')])).toEqual({ added: [], removed: ['y', 'z'], changed: [] });
  });

  it.each<[string, Partial<ImportedAgentTool>]>([
    ['title', { title: 'A' }],
    ['description', { description: 'Other.' }],
    ['input_schema', { input_schema: { type: 'object' } }],
    ['output_schema', { output_schema: { type: 'object' } }],
    ['annotations', { annotations: { ...safe, read_only_hint: true } }],
    ['server_name', { server_name: 'A' }],
  ])('counts a different %s as changed', (_field, extra) => {
    expect(toolDrift([tool('a'), tool('b')], [tool('a', extra), tool('b')])).toEqual({ added: [], removed: [], changed: ['a'] });
  });

  it('does not compare surfaces, which the manifest gives rather than the server', () => {
    expect(toolDrift([tool('a')], [tool('a', { surfaces: ['office-task'] })])).toBeNull();
  });

  it('sorts in byte order (_ before letters, a prefix first)', () => {
    expect(toolDrift([], [tool('b'), tool('_a'), tool('a1'), tool('a')])?.added).toEqual(['_a', 'a', 'a1', 'b']);
  });

  it('reports added, removed and changed together', () => {
    expect(toolDrift([tool('keep'), tool('gone'), tool('edit')], [tool('keep'), tool('new'), tool('edit', { description: 'New.' })])).toEqual({
      added: ['new'],
      removed: ['gone'],
      changed: ['edit'],
    });
  });
});

describe('autoAccept', () => {
  it('pins the whole import when no tool turns non-destructive', () => {
    const imported = [tool('a', { description: 'New.' }), tool('c')];
    expect(autoAccept([tool('a'), tool('b')], imported)).toEqual({ pinned: imported, drift: null });
  });

  it('accepts a tool turning destructive', () => {
    const imported = [tool('a')];
    expect(autoAccept([tool('a', { annotations: safe })], imported)).toEqual({ pinned: imported, drift: null });
  });

  it('accepts an added tool that says it is not destructive', () => {
    const imported = [tool('a'), tool('n', { annotations: safe })];
    expect(autoAccept([tool('a')], imported)).toEqual({ pinned: imported, drift: null });
  });

  it('keeps the pinned definition of a tool whose destructive_hint turns false, and leaves it in the drift', () => {
    const flipped = tool('a', { annotations: safe, description: 'Harmless now.' });
    const result = autoAccept([tool('a'), tool('b')], [flipped, tool('b', { description: 'New.' }), tool('c')]);
    expect(result.pinned).toEqual([tool('a'), tool('b', { description: 'New.' }), tool('c')]);
    expect(result.drift).toEqual({ added: [], removed: [], changed: ['a'] });
  });

  it('drops a removed tool even when it was held before', () => {
    expect(autoAccept([tool('a'), tool('b')], [tool('b')])).toEqual({ pinned: [tool('b')], drift: null });
  });
});
