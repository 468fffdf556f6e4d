import type { CatalogSnapshot } from '../../src/domain/catalog';
import { exposedToolName } from '../../src/domain/naming';
import { checkSnapshot } from '../../src/domain/snapshot-application';
import { entryText, keepEntryText, parseSnapshotText } from '../../src/domain/snapshot-text';
import { FakeSchemaCompiler } from './fixtures';

const GEN = '000000000003-0a1b2c3d';

function tool(local: string, description: string): Record<string, unknown> {
  return {
    plugin_id: 'acme.tools',
    plugin_version: '1.0.0',
    local_name: local,
    exposed_name: exposedToolName('kandev', 'acme.tools', local),
    description,
    surfaces: ['kanban-task'],
    input_schema: { type: 'object', properties: { a: { type: 'string', enum: ['x', '}', ']"'] } } },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
  };
}

function checked(value: unknown, held: CatalogSnapshot | null): CatalogSnapshot {
  const result = checkSnapshot(value, 'kandev', new FakeSchemaCompiler(), held);
  if (!result.ok) throw new Error(JSON.stringify(result.violations));
  return result.snapshot;
}

describe('parseSnapshotText', () => {
  it('parses as JSON.parse does and keeps each tool entry text, whatever the spacing or the strings hold', () => {
    const tools = [tool('run', 'a "quoted" \\ back}slash ] {'), tool('walk', 'plain'), { nested: [[1, 2], { tools: [3] }], n: -1.5e3, t: true, z: null }];
    const texts = [
      JSON.stringify({ generation: GEN, tools, revision: 1 }),
      JSON.stringify({ generation: GEN, revision: 1, tools }, null, 2),
      `{ "tools" : [ 1 ] ,\n "x": {"tools": []}, "tools"\t:\r\n[${tools.map((t) => JSON.stringify(t)).join(' ,\n ')} ] }`,
    ];
    for (const text of texts) {
      const value = parseSnapshotText(text) as { tools: unknown[] };
      expect(value).toEqual(JSON.parse(text));
      for (const entry of value.tools) expect(JSON.parse(entryText(entry)!)).toEqual(entry);
    }
  });

  it('keeps no text where there is no top-level tools list', () => {
    const list = parseSnapshotText('[{"tools":[{"a":1}]}]') as Array<{ tools: object[] }>;
    expect(entryText(list[0]!.tools[0])).toBeUndefined();
    const delta = parseSnapshotText('{"delta":{"tools":[{"a":1}]}}') as { delta: { tools: object[] } };
    expect(entryText(delta.delta.tools[0])).toBeUndefined();
    expect(parseSnapshotText('{"tools":{"a":{}}}')).toEqual({ tools: { a: {} } });
    expect(() => parseSnapshotText('{"tools": [')).toThrow(SyntaxError);
  });

  it('keeps the texts of a snapshot inside a frame, under the path given', () => {
    const tools = [tool('run', 'runs'), tool('walk', '{"payload":{"tools":[]}}')];
    const text = JSON.stringify({ id: '1', payload: { generation: GEN, revision: 1, tools }, tools: [{ a: 1 }], type: 'request' });
    const frame = parseSnapshotText(text, ['payload']) as { payload: { tools: object[] }; tools: object[] };
    expect(frame).toEqual(JSON.parse(text));
    expect(frame.payload.tools.map((entry) => entryText(entry))).toEqual(tools.map((t) => JSON.stringify(t)));
    expect(entryText(frame.tools[0])).toBeUndefined();
  });

  it('keeps a copy of an entry text equal to the slice', () => {
    const value = parseSnapshotText(JSON.stringify({ tools: [{ a: 1 }] })) as { tools: object[] };
    keepEntryText(value.tools[0]);
    expect(entryText(value.tools[0])).toBe('{"a":1}');
  });
});

describe('checkSnapshot on entries decoded from text', () => {
  const text = (revision: number, description: string): string =>
    JSON.stringify({ generation: GEN, revision, tools: [tool('run', description), tool('walk', 'walks')] });

  it('keeps the held tool of an entry whose text is the held one, by the text alone', () => {
    const first = parseSnapshotText(text(1, 'runs')) as { tools: Array<Record<string, unknown>> };
    const held = checked(first, null);
    // A probe: were the entries walked, the altered held entry would no longer match.
    first.tools[0]!.description = 'altered after it was checked';
    const next = checked(parseSnapshotText(text(2, 'runs')), held);
    expect(next.tools[0]).toBe(held.tools[0]);
    expect(next.tools[1]).toBe(held.tools[1]);
  });

  it('builds a changed tool again and keeps the unchanged one', () => {
    const held = checked(parseSnapshotText(text(1, 'runs')), null);
    const next = checked(parseSnapshotText(text(2, 'runs faster')), held);
    const run = next.tools.find((t) => t.local_name === 'run')!;
    expect(run).not.toBe(held.tools.find((t) => t.local_name === 'run'));
    expect(run.description).toBe('runs faster');
    expect(next.tools.find((t) => t.local_name === 'walk')).toBe(held.tools.find((t) => t.local_name === 'walk'));
  });

  it('still keeps a held tool whose entry was not decoded from text when the values are equal', () => {
    const held = checked(parseSnapshotText(text(1, 'runs')), null);
    const next = checked(JSON.parse(text(2, 'runs')), held);
    expect(next.tools).toEqual(held.tools);
    expect(next.tools[0]).toBe(held.tools[0]);
  });

  it('compares by text from the first swap decoded from text on, when the held tool came from a value', () => {
    const first = JSON.parse(text(1, 'runs')) as { tools: Array<Record<string, unknown>> };
    const held = checked(first, null);
    const second = checked(parseSnapshotText(text(2, 'runs')), held);
    expect(second.tools[0]).toBe(held.tools[0]);
    // A probe: the first entry, were it still compared with, no longer matches.
    first.tools[0]!.description = 'altered after it was checked';
    const third = checked(parseSnapshotText(text(3, 'runs')), second);
    expect(third.tools[0]).toBe(held.tools[0]);
  });
});
