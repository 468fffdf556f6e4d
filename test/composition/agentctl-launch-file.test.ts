import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSnapshotFile } from '../../src/composition/agentctl-launch';
import { entryText } from '../../src/domain/snapshot-text';

describe('readSnapshotFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolport-launch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the text of each tool, for the first swap to compare as text', () => {
    const tools = [{ exposed_name: 'a' }, { exposed_name: 'b', input_schema: { type: 'object' } }];
    const path = join(dir, 'snapshot.json');
    writeFileSync(path, JSON.stringify({ generation: 'g', revision: 1, tools }, null, 2));
    const value = readSnapshotFile(path) as { tools: object[] };
    expect(value.tools).toEqual(tools);
    expect(value.tools.map((entry) => JSON.parse(entryText(entry)!) as unknown)).toEqual(tools);
  });

  it('names the file it cannot read', () => {
    expect(() => readSnapshotFile(join(dir, 'missing.json'))).toThrow(/cannot read the launch snapshot .*missing\.json/);
  });
});
