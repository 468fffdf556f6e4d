import fc from 'fast-check';
import { assertNoNameClash, clashingAtStartup, DEFAULT_TOOL_PREFIX, exposedToolName, findNameClashes, pluginSlug } from '../../src/domain/naming';
import { ToolportError } from '../../src/domain/errors';
import { record, tool } from './fixtures';

const pluginIdArb = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,63}$/).filter((id) => !/[._-]$/.test(id));
const localNameArb = fc.stringMatching(/^[a-z0-9][a-z0-9_]{0,31}$/);
const prefixArb = fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/);

describe('pluginSlug', () => {
  it.each([
    ['acme.tools', 'acme_tools'],
    ['Task-Tags.V1', 'task_tags_v1'],
    ['__a..b__', 'a__b'],
    ['a--b', 'a__b'],
    ['-x-', 'x'],
    ['plain_name', 'plain_name'],
  ])('%s → %s (lower-cased, others to _, _ trimmed at the ends, runs kept)', (id, slug) => {
    expect(pluginSlug(id)).toBe(slug);
  });
});

describe('exposedToolName', () => {
  it.each([
    ['acme.tools', 'add_tag', 'kandev_acme_tools_add_tag'],
    ['task-tags.v1', 'add_tag', 'kandev_task_tags_v1_add_tag'],
    ['a-very-long-plugin-id-that-exceeds-the-readable-name-budget', 'run', 'kandev_a_very_long_plugin_id_that_exceeds_the_reada_run_80f7591f'],
  ])('docs/plugin-protocol.md §3 example %s/%s → %s', (id, local, exposed) => {
    expect(exposedToolName(DEFAULT_TOOL_PREFIX, id, local)).toBe(exposed);
  });

  it('keeps a name of exactly 64 characters readable', () => {
    const id = 'x'.repeat(64 - 'kandev__run'.length);
    const name = exposedToolName('kandev', id, 'run');
    expect(name).toHaveLength(64);
    expect(name).toBe(`kandev_${id}_run`);
  });

  it('hashes a name of 65 characters down to exactly 64', () => {
    const id = 'x'.repeat(65 - 'kandev__run'.length);
    const name = exposedToolName('kandev', id, 'run');
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^kandev_x+_run_[0-9a-f]{8}$/);
  });

  it('uses the prefix setting', () => {
    expect(exposedToolName('acme', 'a.b', 'run')).toBe('acme_a_b_run');
  });

  it('is at most 64 characters, well-formed, deterministic, and readable whenever that fits (property)', () => {
    fc.assert(
      fc.property(pluginIdArb, localNameArb, (id, local) => {
        const name = exposedToolName(DEFAULT_TOOL_PREFIX, id, local);
        expect(name.length).toBeLessThanOrEqual(64);
        expect(name).toMatch(/^[a-z_][a-z0-9_]*$/);
        expect(exposedToolName(DEFAULT_TOOL_PREFIX, id, local)).toBe(name);
        const readable = `kandev_${pluginSlug(id)}_${local}`;
        if (readable.length <= 64) expect(name).toBe(readable);
        else expect(name).toHaveLength(64);
      }),
      { numRuns: 300 },
    );
  });

  it('never exceeds 64 characters under any valid prefix (property)', () => {
    fc.assert(
      fc.property(prefixArb, pluginIdArb, localNameArb, (prefix, id, local) => {
        const name = exposedToolName(prefix, id, local);
        expect(name.length).toBeLessThanOrEqual(64);
        expect(name.startsWith(`${prefix}_`)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('gives different hashed names to different long ids that share a cut slug', () => {
    const base = 'a'.repeat(60);
    expect(exposedToolName('kandev', `${base}.x`, 'run')).not.toBe(exposedToolName('kandev', `${base}-x`, 'run'));
  });
});

describe('name collisions', () => {
  it('finds a.b and a-b both wanting kandev_a_b_run', () => {
    const clashes = findNameClashes({ id: 'a-b', toolNames: ['run'] }, [{ id: 'a.b', toolNames: ['run'] }], 'kandev');
    expect(clashes).toEqual([{ name: 'kandev_a_b_run', pluginId: 'a-b', takenBy: 'a.b' }]);
  });

  it('ignores a plugin with the candidate’s own id (an upgrade replaces itself)', () => {
    expect(findNameClashes({ id: 'a.b', toolNames: ['run'] }, [{ id: 'a.b', toolNames: ['run'] }], 'kandev')).toEqual([]);
  });

  it('reports no clash for distinct names', () => {
    expect(findNameClashes({ id: 'a.c', toolNames: ['run'] }, [{ id: 'a.b', toolNames: ['run'] }], 'kandev')).toEqual([]);
  });

  it('reserves built-in names: prefix get + plugin task + tool context is get_task_context', () => {
    expect(findNameClashes({ id: 'task', toolNames: ['context'] }, [], 'get')).toEqual([{ name: 'get_task_context', pluginId: 'task', takenBy: 'built-in' }]);
  });

  it('assertNoNameClash throws NAME_COLLISION naming both plugins and the name', () => {
    let error: unknown;
    try {
      assertNoNameClash({ id: 'a-b', toolNames: ['run'] }, [{ id: 'a.b', toolNames: ['run'] }], 'kandev');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolportError);
    const toolportError = error as ToolportError;
    expect(toolportError.code).toBe('NAME_COLLISION');
    expect(toolportError.message).toContain('"a-b"');
    expect(toolportError.message).toContain('"a.b"');
    expect(toolportError.message).toContain('kandev_a_b_run');
    expect(toolportError.details).toEqual({ name: 'kandev_a_b_run', plugin_id: 'a-b', taken_by: 'a.b' });
  });

  it('assertNoNameClash passes when nothing clashes', () => {
    expect(() => assertNoNameClash({ id: 'a', toolNames: ['run'] }, [{ id: 'b', toolNames: ['run'] }], 'kandev')).not.toThrow();
  });

  it('at startup refuses only the later-installed of two clashing plugins, whatever the list order', () => {
    const earlier = record('a.b', [tool()], { installSeq: 1, status: 'disabled' });
    const later = record('a-b', [tool()], { installSeq: 2 });
    const bystander = record('other', [tool()], { installSeq: 3 });
    const refused = clashingAtStartup([bystander, later, earlier], 'kandev');
    expect([...refused.keys()]).toEqual(['a-b']);
    expect(refused.get('a-b')).toContain('kandev_a_b_run');
    expect(refused.get('a-b')).toContain('"a.b"');
  });

  it('at startup refuses a plugin that takes a built-in name (after a prefix change)', () => {
    const refused = clashingAtStartup([record('task', [tool({ name: 'context' })])], 'get');
    expect(refused.get('task')).toContain('built-in');
  });

  it('at startup refuses nothing when names are distinct', () => {
    expect(clashingAtStartup([record('a', [tool()]), record('b', [tool()], { installSeq: 2 })], 'kandev').size).toBe(0);
  });
});
