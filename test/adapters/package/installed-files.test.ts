import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { firstDifference, parseSeal, readInstalledFiles, sealText, type InstalledFiles } from '../../../src/adapters/package/installed-files';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('installed files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-installed-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads each file by its sha256 and each link by its target, without following it, and lists no folder', async () => {
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'main.js'), 'hello');
    fs.symlinkSync('main.js', path.join(dir, 'bin', 'run'));
    fs.symlinkSync('/etc', path.join(dir, 'etc'));
    expect(await readInstalledFiles(dir)).toEqual({
      'bin/main.js': { sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' },
      'bin/run': { link: 'main.js' },
      etc: { link: '/etc' },
    });
  });

  it('names nothing when nothing changed, whatever the order of the entries', () => {
    expect(firstDifference({ x: { sha256: A }, y: { link: 'x' } }, { y: { link: 'x' }, x: { sha256: A } })).toBeNull();
  });

  it('names the file changed, added or removed, the first in byte order when there are several', () => {
    const recorded: InstalledFiles = { 'main.js': { sha256: A }, 'lib/b.js': { sha256: A } };
    expect(firstDifference(recorded, { 'main.js': { sha256: B }, 'lib/b.js': { sha256: A } })).toBe(
      `installed file "main.js" changed after install (it was a file with sha256 ${A}, it is a file with sha256 ${B})`,
    );
    expect(firstDifference(recorded, { ...recorded, 'lib/a.js': { sha256: A } })).toBe('installed file "lib/a.js" was added after install');
    expect(firstDifference(recorded, { 'main.js': { sha256: A } })).toBe('installed file "lib/b.js" was removed after install');
    expect(firstDifference(recorded, { 'main.js': { link: '/tmp/evil.js' }, 'lib/b.js': { sha256: B } })).toContain('"lib/b.js" changed');
    expect(firstDifference(recorded, { 'main.js': { link: '/tmp/evil.js' }, 'lib/b.js': { sha256: A } })).toContain('it is a link to /tmp/evil.js');
  });

  it('reads back the seal it wrote, and refuses one of another version or format', () => {
    const files: InstalledFiles = { 'main.js': { sha256: A }, run: { link: 'main.js' } };
    expect(parseSeal(sealText('acme.tools', '1.0.0', files), 'acme.tools', '1.0.0')).toEqual(files);
    expect(() => parseSeal(sealText('acme.tools', '1.0.0', files), 'acme.tools', '2.0.0')).toThrow('not the record of acme.tools@2.0.0');
    expect(() => parseSeal('{"format":2}', 'acme.tools', '1.0.0')).toThrow('not the record');
    expect(() => parseSeal('garbage', 'acme.tools', '1.0.0')).toThrow();
  });
});
