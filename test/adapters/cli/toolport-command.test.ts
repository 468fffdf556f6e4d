import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { toolportBin } from '../../../src/adapters/cli/toolport-bin';
import { toolportCommand } from '../../../src/adapters/cli/toolport-command';

describe('toolportCommand: the form of toolport that works in a shell', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'toolport-command-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is the absolute bin/toolport when no toolport is on PATH', () => {
    mkdirSync(join(root, 'empty'));
    expect(toolportCommand({ PATH: join(root, 'empty') })).toBe(toolportBin());
    expect(toolportCommand({})).toBe(toolportBin());
  });

  it('is bare toolport when the first toolport on PATH is this one (npm link makes such a link)', () => {
    mkdirSync(join(root, 'bin'));
    symlinkSync(toolportBin(), join(root, 'bin', 'toolport'));
    expect(toolportCommand({ PATH: [join(root, 'missing'), join(root, 'bin')].join(delimiter) })).toBe('toolport');
  });

  it('is the absolute path when the toolport on PATH is another one, and quotes a path with a space', () => {
    mkdirSync(join(root, 'other'));
    writeFileSync(join(root, 'other', 'toolport'), '#!/bin/sh\n');
    chmodSync(join(root, 'other', 'toolport'), 0o755);
    expect(toolportCommand({ PATH: join(root, 'other') })).toBe(toolportBin());
    expect(toolportCommand({ PATH: '' }, '/opt/my tools/bin/toolport')).toBe("'/opt/my tools/bin/toolport'");
  });
});
