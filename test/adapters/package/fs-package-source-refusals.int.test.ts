import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { FsPackageSource } from '../../../src/adapters/package/fs-package-source';
import { DEFAULT_PACKAGE_LIMITS, packageLimits } from '../../../src/adapters/package/package-limits';
import { InvalidPackageError } from '../../../src/domain/errors';
import { type RawTarEntry, listTree, manifestYaml, writePackageDir, writeTgz, writeTgzWithTrailer, writeZeroBombTgz } from './package-fixtures';

const schemas = new AjvSchemaCompiler();
const good: RawTarEntry[] = [
  { path: 'manifest.yaml', content: manifestYaml('refused.plugin') },
  { path: 'bin/plugin', content: '#!/bin/sh\n' },
];

/**
 * Every refusal must answer INVALID_PACKAGE naming the offending path, and leave nothing
 * behind: the data dir holds at most an empty `tmp/`, and nothing appeared next to it.
 */
describe('FsPackageSource: refusing unsafe packages', () => {
  let base: string;
  let dataDir: string;
  let source: FsPackageSource;

  beforeEach(() => {
    // Deep enough that a `../../..` entry escaping the staging folder would land inside `base`.
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-refuse-'));
    dataDir = path.join(base, 'data');
    source = new FsPackageSource(dataDir, schemas, '0.1.0');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  async function expectRefused(file: string, violation: { path: string; message?: RegExp }, using = source): Promise<void> {
    const before = listTree(base).filter((p) => !p.startsWith('data'));
    const error = await using.stage(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidPackageError);
    const violations = (error as InvalidPackageError).violations;
    expect(violations).toContainEqual({ path: violation.path, message: expect.stringMatching(violation.message ?? /./) });
    expect(listTree(base).filter((p) => !p.startsWith('data'))).toEqual(before);
    if (fs.existsSync(dataDir)) expect(listTree(dataDir).filter((p) => p !== 'tmp')).toEqual([]);
    expect(fs.existsSync(path.join(os.tmpdir(), 'escaped.txt'))).toBe(false);
  }

  it('refuses "../" paths', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [...good, { path: '../../../escaped.txt', content: 'out' }]);
    await expectRefused(file, { path: '../../../escaped.txt', message: /\.\./ });
  });

  it('refuses a ".." hidden in the middle of a path', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [...good, { path: 'bin/../../escaped.txt', content: 'out' }]);
    await expectRefused(file, { path: 'bin/../../escaped.txt' });
  });

  it('refuses absolute paths', async () => {
    const target = path.join(base, 'escaped.txt');
    const file = writeTgz(path.join(base, 'p.tgz'), [...good, { path: target, content: 'out' }]);
    await expectRefused(file, { path: target, message: /absolute/ });
  });

  it('refuses a symbolic link leaving the package, relative or absolute', async () => {
    await expectRefused(writeTgz(path.join(base, 'rel.tgz'), [...good, { path: 'bin/up', type: 'SymbolicLink', linkpath: '../../secret' }]), {
      path: 'bin/up',
      message: /leaves the package/,
    });
    await expectRefused(writeTgz(path.join(base, 'abs.tgz'), [...good, { path: 'passwd', type: 'SymbolicLink', linkpath: '/etc/passwd' }]), {
      path: 'passwd',
      message: /absolute/,
    });
  });

  it('refuses a file written through a symbolic link, even one pointing inside', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [...good, { path: 'alias', type: 'SymbolicLink', linkpath: 'bin' }, { path: 'alias/extra', content: 'x' }]);
    await expectRefused(file, { path: 'alias/extra', message: /symbolic link "alias"/ });
  });

  it('refuses a chain of links that escapes although each looks inside on its own', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [
      ...good,
      { path: 'd/', type: 'Directory' },
      { path: 'd/x', type: 'SymbolicLink', linkpath: '..' },
      { path: 'y', type: 'SymbolicLink', linkpath: 'd/x/..' },
    ]);
    await expectRefused(file, { path: 'y', message: /leaves the package/ });
  });

  it('refuses a link inside a single top-level folder that points at its parent', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [
      { path: 'pkg/manifest.yaml', content: manifestYaml('refused.plugin') },
      { path: 'pkg/bin/plugin', content: '#!/bin/sh\n' },
      { path: 'pkg/up', type: 'SymbolicLink', linkpath: '..' },
    ]);
    await expectRefused(file, { path: 'up', message: /leaves the package/ });
  });

  it('refuses a hard link leaving the package', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [...good, { path: 'hard', type: 'Link', linkpath: '../../etc/passwd' }]);
    await expectRefused(file, { path: 'hard', message: /hard link/ });
  });

  it('refuses device files', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [...good, { path: 'dev', type: 'CharacterDevice' }]);
    await expectRefused(file, { path: 'dev', message: /unsupported entry type/ });
  });

  it('refuses a manifest over 1 MiB', async () => {
    const big = `${manifestYaml('refused.plugin')}\n# ${'x'.repeat(1024 * 1024)}\n`;
    const file = writeTgz(path.join(base, 'p.tgz'), [{ path: 'manifest.yaml', content: big }, good[1]]);
    await expectRefused(file, { path: 'manifest.yaml', message: /limit is 1048576/ });
  });

  it('refuses a package over 200 MiB unpacked before writing any of it', async () => {
    const file = path.join(base, 'bomb.tgz');
    await writeZeroBombTgz(file, DEFAULT_PACKAGE_LIMITS.unpackedBytes + 1);
    expect(fs.statSync(file).size).toBeLessThan(2 * 1024 * 1024);
    await expectRefused(file, { path: '(package)', message: /larger than 209715200 bytes/ });
  }, 20_000);

  describe('decompression', () => {
    it('reads nothing past the end-of-archive blocks: 64 MB of zeros behind a 65 KB file cost nothing', async () => {
      // tar re-concatenated every byte after the end of the archive: 71 s of CPU here.
      const file = path.join(base, 'padded.tgz');
      await writeTgzWithTrailer(file, good, 64 * 1024 * 1024);
      expect(fs.statSync(file).size).toBeLessThan(100 * 1024);
      const staged = await source.stage(file);
      expect(staged.manifest.id).toBe('refused.plugin');
      await source.discard(staged);
    });

    it('refuses an archive of nothing but zeros at once', async () => {
      const file = path.join(base, 'zeros.tgz');
      await writeTgzWithTrailer(file, [], 64 * 1024 * 1024);
      await expectRefused(file, { path: '(package)', message: /Unrecognized archive format/ });
    });

    it('stops at the first broken header instead of reporting every 512 bytes of garbage', async () => {
      const file = path.join(base, 'garbage.tgz');
      fs.writeFileSync(file, zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x41), { level: 1 }));
      const error = (await source.stage(file).catch((e: unknown) => e)) as InvalidPackageError;
      expect(error).toBeInstanceOf(InvalidPackageError);
      expect(error.violations[0]).toEqual({ path: '(package)', message: 'archive refused: checksum failure' });
      expect(error.violations.length).toBeLessThan(100);
    });

    it('stops decompressing at the first byte over the archive cap, whatever the headers claim', async () => {
      // Extended headers are tar's own metadata: their bytes count toward no file, only the stream.
      const limits = packageLimits({ ...DEFAULT_PACKAGE_LIMITS, unpackedBytes: 2000, entries: 10 });
      const small = new FsPackageSource(dataDir, schemas, '0.1.0', { limits });
      const file = writeTgz(path.join(base, 'pax.tgz'), [{ path: 'PaxHeader', type: 'ExtendedHeader', content: Buffer.alloc(64 * 1024, 0x20) }, ...good]);
      await expectRefused(file, { path: '(package)', message: new RegExp(`larger than ${limits.archiveBytes} bytes once decompressed`) }, small);
    });
  });

  it('counts bytes across every file, not file by file', async () => {
    const small = new FsPackageSource(dataDir, schemas, '0.1.0', { limits: { ...DEFAULT_PACKAGE_LIMITS, unpackedBytes: 2000 } });
    const file = writeTgz(path.join(base, 'p.tgz'), [...good, { path: 'a.bin', content: Buffer.alloc(900) }, { path: 'b.bin', content: Buffer.alloc(900) }]);
    await expectRefused(file, { path: '(package)', message: /larger than 2000 bytes/ }, small);
    const dir = writePackageDir(path.join(base, 'dir'), 'refused.plugin');
    fs.writeFileSync(path.join(dir, 'a.bin'), Buffer.alloc(1500));
    fs.writeFileSync(path.join(dir, 'b.bin'), Buffer.alloc(1500));
    await expectRefused(dir, { path: '(package)', message: /larger than 2000 bytes/ }, small);
  });

  it('refuses a folder with a link leaving it, before copying anything', async () => {
    const dir = writePackageDir(path.join(base, 'dir'), 'refused.plugin');
    fs.symlinkSync('../../../etc', path.join(dir, 'bin', 'etc'));
    await expectRefused(dir, { path: 'bin/etc', message: /leaves the package/ });
  });

  it('reports unparsable YAML at manifest.yaml, and a missing manifest', async () => {
    await expectRefused(writeTgz(path.join(base, 'bad.tgz'), [{ path: 'manifest.yaml', content: 'id: [unclosed\n' }, good[1]]), {
      path: 'manifest.yaml',
      message: /not valid YAML/,
    });
    await expectRefused(writeTgz(path.join(base, 'none.tgz'), [good[1]]), { path: 'manifest.yaml', message: /missing/ });
  });

  it('reports every manifest violation from validation', async () => {
    const manifest = manifestYaml('Bad_Id!').replace('surfaces: [kanban-task]', 'surfaces: [configuration]');
    const error = await source.stage(writeTgz(path.join(base, 'p.tgz'), [{ path: 'manifest.yaml', content: manifest }, good[1]])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPackageError);
    const paths = (error as InvalidPackageError).violations.map((v) => v.path);
    expect(paths).toEqual(expect.arrayContaining(['id', 'agent_tools[0].surfaces[0]']));
  });

  it('refuses a runtime executable that is not in the package', async () => {
    await expectRefused(writeTgz(path.join(base, 'p.tgz'), [good[0]]), { path: 'runtime.executables.any', message: /not a file/ });
  });

  it("refuses a file that is not a gzip'd tar, and a path that does not exist", async () => {
    const junk = path.join(base, 'junk.tgz');
    fs.writeFileSync(junk, 'this is not an archive');
    await expectRefused(junk, { path: '(package)' });
    await expectRefused(path.join(base, 'missing'), { path: '(package)', message: /no package/ });
  });
});
