import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirNotPrivateError, makeDataDirPrivate, openPrivateDataDir } from '../../../src/adapters/shared/private-data-dir';

const NOBODY = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
const NOGROUP = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
const modeOf = (path: string): number => statSync(path).mode & 0o7777;

/** As another local user: `nobody` runs `ln -s` itself, so the link is truly theirs. */
function linkAsNobody(target: string, link: string): void {
  execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'ln', '-s', target, link]);
}

/**
 * Issue 25: the data dir is trusted by path no longer. It is resolved once, and refused when
 * another user's link or folder is on the way (the StrictModes walk); nothing is chmodded
 * through another user's link.
 */
describe('the data dir path', () => {
  const uid = process.getuid!();
  let base: string;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-datadir-path-')));
    chmodSync(base, 0o755);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("refuses a data dir reached through another user's symbolic link, naming the link, and chmods nothing it points at", () => {
    const victim = join(base, 'victim-files');
    mkdirSync(victim, { mode: 0o755 });
    writeFileSync(join(victim, 'keys'), 'x', { mode: 0o644 });
    // A world-writable, sticky drop folder (as /tmp) where the other user plants the link.
    const shared = join(base, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const planted = join(shared, 'toolport-data');
    linkAsNobody(victim, planted);
    expect(lstatSync(planted).uid).toBe(NOBODY);

    expect(() => makeDataDirPrivate(planted, uid)).toThrow(DataDirNotPrivateError);
    expect(() => makeDataDirPrivate(planted, uid)).toThrow(`${planted} is a symbolic link owned by uid ${NOBODY}`);
    expect([modeOf(victim), modeOf(join(victim, 'keys'))]).toEqual([0o755, 0o644]);
    // And as a folder on the way.
    expect(() => makeDataDirPrivate(join(planted, 'deeper'), uid)).toThrow(`${planted} is a symbolic link owned by uid ${NOBODY}`);
  });

  it('follows a link of its own user, and answers the real path it then uses', () => {
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(base, 'link'));
    expect(openPrivateDataDir(join(base, 'link'), uid)).toEqual({ dataDir: real, tightened: [] });
  });

  it('refuses a data dir under a folder every user may write without the sticky bit, before creating anything', () => {
    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => makeDataDirPrivate(join(open, 'data'), uid)).toThrow(`its folder ${open} is writable by every user and has no sticky bit`);
    expect(() => statSync(join(open, 'data'))).toThrow();
    chmodSync(open, 0o1777);
    expect(openPrivateDataDir(join(open, 'data'), uid).dataDir).toBe(join(open, 'data'));
  });

  it('refuses a data dir inside a folder another user owns, who could rename it away', () => {
    const theirs = join(base, 'theirs');
    mkdirSync(theirs, { mode: 0o755 });
    mkdirSync(join(theirs, 'data'), { mode: 0o700 });
    chownSync(theirs, NOBODY, NOGROUP);
    expect(() => makeDataDirPrivate(join(theirs, 'data'), uid)).toThrow(`its folder ${theirs} belongs to uid ${NOBODY}`);
  });

  it("refuses an entry another user put in a loose data dir, and never tightens through another user's link inside it", () => {
    const data = join(base, 'data');
    mkdirSync(data);
    chmodSync(data, 0o777);
    const victim = join(base, 'victim.txt');
    writeFileSync(victim, 'x', { mode: 0o644 });
    linkAsNobody(victim, join(data, 'toolport.db'));
    const tightened = makeDataDirPrivate(data, uid);
    expect(tightened).toEqual([{ path: data, mode: 0o777 }]);
    expect(modeOf(victim)).toBe(0o644);

    chmodSync(data, 0o777);
    writeFileSync(join(data, 'planted'), '');
    chownSync(join(data, 'planted'), NOBODY, NOGROUP);
    expect(() => makeDataDirPrivate(data, uid)).toThrow(`${join(data, 'planted')} belongs to uid ${NOBODY}`);
  });
});
