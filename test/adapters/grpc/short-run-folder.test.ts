import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePrivateTmpDir, ShortRunFolder } from '../../../src/adapters/grpc/private-tmp-dir';

/** The short run folder (docs/operations.md §4): TMPDIRs for data dirs too deep for a unix socket path. */
describe('ShortRunFolder and makePrivateTmpDir', () => {
  let dataDir: string;
  const made: string[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'toolport-short-'));
  });
  afterEach(() => {
    for (const path of [dataDir, ...made.splice(0)]) rmSync(path, { recursive: true, force: true });
  });

  const folderOf = (runFolder: ShortRunFolder): string => {
    const path = runFolder.path();
    made.push(path);
    return path;
  };

  it('is /tmp/toolport-<uid>-<8 hex>, at most 40 bytes, 0700, recorded in the data dir and the same for the next backend', () => {
    const record = join(dataDir, 'run-folder');
    const path = folderOf(new ShortRunFolder(record));
    expect(path).toMatch(new RegExp(`^/tmp/toolport-${process.getuid!()}-[0-9a-f]{8}$`));
    expect(Buffer.byteLength(path)).toBeLessThanOrEqual(40);
    expect(lstatSync(path).mode & 0o7777).toBe(0o700);
    expect(readFileSync(record, 'utf8')).toBe(`${path}\n`);
    expect(new ShortRunFolder(record).path()).toBe(path);
  });

  it('never uses a recorded path that is a link or gone, and clears what an earlier backend left in its own', () => {
    const record = join(dataDir, 'run-folder');
    const path = folderOf(new ShortRunFolder(record, 0o711));
    expect(lstatSync(path).mode & 0o7777).toBe(0o711);
    mkdirSync(join(path, 'tleft'));
    new ShortRunFolder(record).removeLeftovers();
    expect(lstatSync(join(path, 'tleft'), { throwIfNoEntry: false })).toBeUndefined();
    rmSync(path, { recursive: true });
    const target = mkdtempSync(join(tmpdir(), 'toolport-target-'));
    made.push(target);
    symlinkSync(target, path);
    const next = folderOf(new ShortRunFolder(record));
    expect(next).not.toBe(path);
    expect(lstatSync(next).isDirectory()).toBe(true);
    expect(readFileSync(record, 'utf8')).toBe(`${next}\n`);
    writeFileSync(record, '/etc\n');
    expect(folderOf(new ShortRunFolder(record)).startsWith('/tmp/toolport-')).toBe(true);
  });

  it('takes each TMPDIR there when a socket path under the data dir would reach 100 bytes, and under the data dir otherwise', () => {
    const runFolder = new ShortRunFolder(join(dataDir, 'run-folder'));
    const place = { shortRoot: () => folderOf(runFolder) };
    const near = makePrivateTmpDir(join(dataDir, 'plugin-tmp'), place);
    expect(near.outsideRoot).toBe(false);
    expect(near.path.startsWith(join(dataDir, 'plugin-tmp'))).toBe(true);
    const deep = join(dataDir, 'd'.repeat(60), 'plugin-tmp');
    const far = makePrivateTmpDir(deep, place);
    expect(far.outsideRoot).toBe(true);
    expect(far.path.startsWith(`${runFolder.path()}/t`)).toBe(true);
    expect(lstatSync(far.path).mode & 0o7777).toBe(0o700);
    far.remove();
    near.remove();
  });
});
