import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { FsPackageSource } from '../../../src/adapters/package/fs-package-source';
import { DEFAULT_PACKAGE_LIMITS } from '../../../src/adapters/package/package-limits';
import { ToolportError } from '../../../src/domain/errors';
import { listTree, manifestYaml, writePackageDir, writeTgz } from './package-fixtures';

const schemas = new AjvSchemaCompiler();

describe('FsPackageSource: installing good packages', () => {
  let base: string;
  let dataDir: string;
  let source: FsPackageSource;

  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-pkg-'));
    dataDir = path.join(base, 'data');
    source = new FsPackageSource(dataDir, schemas, '0.1.0');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('gives a directory the sha256 of its sorted `sha256sum` lines and installs it executable', async () => {
    const dir = writePackageDir(path.join(base, 'src'), 'acme.tools');
    fs.mkdirSync(path.join(dir, 'lib'));
    fs.writeFileSync(path.join(dir, 'lib', 'a b.txt'), 'spaces in names');
    fs.symlinkSync('../README.md', path.join(dir, 'lib', 'readme-link'));
    const expected = execFileSync('bash', ['-c', "find . ! -type d | sed 's|^\\./||' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum | cut -d' ' -f1"], {
      cwd: dir,
    })
      .toString()
      .trim();

    const staged = await source.stage(dir);
    expect(staged.sha256).toBe(expected);
    expect(staged.manifest.id).toBe('acme.tools');
    const installed = await source.commit(staged);

    expect(installed.installDir).toBe(path.join(dataDir, 'plugins', 'acme.tools', '1.0.0'));
    expect(installed.executable).toBe(path.join(installed.installDir, 'bin', 'plugin'));
    expect(fs.statSync(installed.executable).mode & 0o111).toBe(0o111);
    expect(fs.readFileSync(path.join(installed.installDir, 'lib', 'a b.txt'), 'utf8')).toBe('spaces in names');
    expect(fs.readlinkSync(path.join(installed.installDir, 'lib', 'readme-link'))).toBe('../README.md');
    expect(fs.readdirSync(path.join(dataDir, 'tmp'))).toEqual([]);
    expect(fs.statSync(path.join(dir, 'bin', 'plugin')).mode & 0o111).toBe(0);
  });

  it('gives a .tgz the sha256 of the file and accepts the package at the root or in one top-level folder', async () => {
    const flat = writeTgz(path.join(base, 'flat.tgz'), [
      { path: 'manifest.yaml', content: manifestYaml('flat.plugin') },
      { path: 'bin/plugin', content: '#!/bin/sh\n' },
    ]);
    const nested = writeTgz(path.join(base, 'nested.tgz'), [
      { path: 'my-plugin/', type: 'Directory' },
      { path: 'my-plugin/manifest.yaml', content: manifestYaml('nested.plugin', '2.0.0-rc.1') },
      { path: 'my-plugin/bin/plugin', content: '#!/bin/sh\n' },
      { path: 'my-plugin/bin/run', type: 'SymbolicLink', linkpath: 'plugin' },
    ]);
    for (const [file, id, version] of [
      [flat, 'flat.plugin', '1.0.0'],
      [nested, 'nested.plugin', '2.0.0-rc.1'],
    ]) {
      const staged = await source.stage(file);
      expect(staged.sha256).toBe(createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
      const installed = await source.commit(staged);
      expect(installed.installDir).toBe(path.join(dataDir, 'plugins', id, version));
      expect(fs.existsSync(path.join(installed.installDir, 'manifest.yaml'))).toBe(true);
      expect(fs.statSync(installed.executable).mode & 0o111).toBe(0o111);
    }
  });

  it('accepts the expected sha256 in any case and refuses a different one with CHECKSUM_MISMATCH, keeping nothing', async () => {
    const file = writeTgz(path.join(base, 'p.tgz'), [
      { path: 'manifest.yaml', content: manifestYaml('sum.plugin') },
      { path: 'bin/plugin', content: '#!/bin/sh\n' },
    ]);
    const sha = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    const staged = await source.stage(file, sha.toUpperCase());
    await source.discard(staged);

    const wrong = `${sha.slice(0, 63)}${sha.endsWith('0') ? '1' : '0'}`;
    await expect(source.stage(file, wrong)).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH', details: { expected: wrong, actual: sha } });
    const dir = writePackageDir(path.join(base, 'dir'), 'sum.dir');
    await expect(source.stage(dir, wrong)).rejects.toBeInstanceOf(ToolportError);
    await expect(source.stage(dir, wrong)).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    expect(listTree(dataDir)).toEqual(['tmp']);
  });

  it('refuses a package with no executable for this host', async () => {
    const arm = new FsPackageSource(dataDir, schemas, '0.1.0', { hostKey: 'linux-x64' });
    const dir = path.join(base, 'mac-only');
    fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'manifest.yaml'), manifestYaml('mac.only').replace('any: bin/plugin', 'darwin-arm64: bin/plugin'));
    fs.writeFileSync(path.join(dir, 'bin', 'plugin'), '');
    await expect(arm.stage(dir)).rejects.toMatchObject({
      code: 'INVALID_PACKAGE',
      details: [{ path: 'runtime.executables', message: expect.stringContaining('linux-x64') }],
    });
  });

  it('keeps installed versions and the data dir where the lifecycle expects them', async () => {
    for (const version of ['1.0.0', '1.1.0', '1.2.0']) {
      await source.commit(await source.stage(writePackageDir(path.join(base, version), 'multi.plugin', version)));
    }
    const data = await source.dataDir('multi.plugin');
    expect(data).toBe(path.join(dataDir, 'plugin-data', 'multi.plugin'));
    fs.writeFileSync(path.join(data, 'state.json'), '{}');

    await source.pruneVersions('multi.plugin', ['1.2.0', '1.1.0']);
    expect(fs.readdirSync(path.join(dataDir, 'plugins', 'multi.plugin')).sort()).toEqual(['.files-1.1.0', '.files-1.2.0', '1.1.0', '1.2.0']);
    await source.removeVersion('multi.plugin', '1.1.0');
    expect(fs.readdirSync(path.join(dataDir, 'plugins', 'multi.plugin')).sort()).toEqual(['.files-1.2.0', '1.2.0']);
    expect(source.locate((await source.stage(writePackageDir(path.join(base, 'again'), 'multi.plugin', '1.2.0'))).manifest).installDir).toBe(
      path.join(dataDir, 'plugins', 'multi.plugin', '1.2.0'),
    );

    await source.removePlugin('multi.plugin');
    expect(fs.existsSync(path.join(dataDir, 'plugins', 'multi.plugin'))).toBe(false);
    expect(fs.existsSync(data)).toBe(false);
    await expect(source.dataDir('../escape')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('replaces a leftover folder of the same version on commit', async () => {
    const leftover = path.join(dataDir, 'plugins', 'crash.plugin', '1.0.0');
    fs.mkdirSync(leftover, { recursive: true });
    fs.writeFileSync(path.join(leftover, 'stale.txt'), 'from a crash');
    const installed = await source.commit(await source.stage(writePackageDir(path.join(base, 'p'), 'crash.plugin')));
    expect(fs.existsSync(path.join(installed.installDir, 'stale.txt'))).toBe(false);
    expect(fs.existsSync(path.join(installed.installDir, 'manifest.yaml'))).toBe(true);
  });

  it('removes staging folders left behind by a crash, and only those', async () => {
    fs.mkdirSync(path.join(dataDir, 'tmp', 'stage-abc123', 'package'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'tmp', 'other.txt'), 'kept');
    await source.removeStaleStaging();
    expect(fs.readdirSync(path.join(dataDir, 'tmp'))).toEqual(['other.txt']);
  });

  it('sweeps the folders no record names: a crash during an uninstall or an upgrade', async () => {
    for (const [id, version] of [
      ['kept.plugin', '1.0.0'],
      ['kept.plugin', '2.0.0'],
      ['gone.plugin', '1.0.0'],
    ]) {
      await source.commit(await source.stage(writePackageDir(path.join(base, `${id}-${version}`), id, version)));
      await source.dataDir(id);
    }
    fs.writeFileSync(path.join(dataDir, 'plugin-data', 'kept.plugin', 'state.json'), '{}');
    const removed = await source.sweep(new Map([['kept.plugin', '2.0.0']]));
    expect(removed).toEqual(['gone.plugin', 'kept.plugin@1.0.0']);
    expect(fs.readdirSync(path.join(dataDir, 'plugins'))).toEqual(['kept.plugin']);
    expect(fs.readdirSync(path.join(dataDir, 'plugins', 'kept.plugin')).sort()).toEqual(['.files-2.0.0', '2.0.0']);
    expect(fs.readdirSync(path.join(dataDir, 'plugin-data'))).toEqual(['kept.plugin']);
    expect(fs.existsSync(path.join(dataDir, 'plugin-data', 'kept.plugin', 'state.json'))).toBe(true);
    expect(await source.sweep(new Map([['kept.plugin', '2.0.0']]))).toEqual([]);
  });

  it('keeps the seal beside the version folder, read-only, and refuses a start when it cannot be read', async () => {
    const staged = await source.stage(writePackageDir(path.join(base, 'src'), 'acme.tools'));
    await source.commit(staged);
    const seal = path.join(dataDir, 'plugins', 'acme.tools', '.files-1.0.0');
    expect(fs.statSync(seal).mode & 0o777).toBe(0o400);
    expect(Object.keys(JSON.parse(fs.readFileSync(seal, 'utf8')).files).sort()).toEqual(['README.md', 'bin/plugin', 'manifest.yaml']);
    fs.rmSync(seal);
    fs.writeFileSync(seal, '{"format":1,"plugin_id":"other","version":"1.0.0","files":{}}');
    await expect(source.verify(staged.manifest)).rejects.toMatchObject({
      code: 'PLUGIN_START_FAILED',
      message: expect.stringContaining('the record of the installed files of acme.tools@1.0.0 cannot be read'),
    });
  });

  it('seals a version installed before seals were kept at its first check, and checks it from then on', async () => {
    const staged = await source.stage(writePackageDir(path.join(base, 'src'), 'acme.tools'));
    const installed = await source.commit(staged);
    fs.rmSync(path.join(dataDir, 'plugins', 'acme.tools', '.files-1.0.0'));
    await source.verify(staged.manifest);
    expect(fs.existsSync(path.join(dataDir, 'plugins', 'acme.tools', '.files-1.0.0'))).toBe(true);
    fs.appendFileSync(installed.executable, '# one more line\n');
    await expect(source.verify(staged.manifest)).rejects.toThrow('installed file "bin/plugin" changed');
  });

  it('uses the contract size limits by default', () => {
    expect(DEFAULT_PACKAGE_LIMITS.manifestBytes).toBe(1024 * 1024);
    expect(DEFAULT_PACKAGE_LIMITS.unpackedBytes).toBe(200 * 1024 * 1024);
  });
});
