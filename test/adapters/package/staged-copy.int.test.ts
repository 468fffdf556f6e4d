import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { FsPackageSource } from '../../../src/adapters/package/fs-package-source';
import * as tarballReader from '../../../src/adapters/package/tarball-reader';
import { manifestYaml, writeTgz } from './package-fixtures';

const schemas = new AjvSchemaCompiler();
const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/**
 * Issue 25: the package file is read once. A package renamed or rewritten while it is being
 * staged cannot put other bytes under the sha256 that was checked, nor into the copy a shared
 * store keeps.
 */
describe('FsPackageSource: one staged copy of a .tgz', () => {
  let base: string;
  let source: FsPackageSource;
  let reviewed: string;
  let unreviewed: string;
  let offered: string;

  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-staged-'));
    source = new FsPackageSource(path.join(base, 'data'), schemas, '0.1.0');
    reviewed = writeTgz(path.join(base, 'reviewed.tgz'), [
      { path: 'manifest.yaml', content: manifestYaml('acme.tools') },
      { path: 'bin/plugin', content: '#!/bin/sh\necho reviewed\n' },
    ]);
    unreviewed = writeTgz(path.join(base, 'unreviewed.tgz'), [
      { path: 'manifest.yaml', content: manifestYaml('acme.tools') },
      { path: 'bin/plugin', content: '#!/bin/sh\necho unreviewed\n' },
    ]);
    offered = path.join(base, 'offered.tgz');
    fs.copyFileSync(reviewed, offered);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** Renames the unreviewed package over the offered path as soon as the first inspection is done. */
  function swapAfterInspection(): void {
    const real = tarballReader.inspectTarball;
    jest.spyOn(tarballReader, 'inspectTarball').mockImplementation(async (file, limits) => {
      const answer = await real(file, limits);
      fs.renameSync(unreviewed, offered);
      return answer;
    });
  }

  it('installs the bytes that were hashed and checked against --sha256, whatever the path holds by extraction', async () => {
    swapAfterInspection();
    const staged = await source.stage(offered, sha256(reviewed));
    const installed = await source.commit(staged);

    expect(staged.sha256).toBe(sha256(reviewed));
    expect(fs.readFileSync(path.join(installed.installDir, 'bin', 'plugin'), 'utf8')).toBe('#!/bin/sh\necho reviewed\n');
    expect(fs.readFileSync(offered, 'utf8')).not.toBe(fs.readFileSync(reviewed, 'utf8'));
  });

  it("hands a shared store the staged bytes, not the path's new content", async () => {
    swapAfterInspection();
    const staged = await source.stage(offered);
    const kept = await source.tarball(staged);
    await source.discard(staged);

    expect(createHash('sha256').update(kept).digest('hex')).toBe(staged.sha256);
    expect(staged.sha256).toBe(sha256(reviewed));
  });

  it('keeps the copy private while staging (0700 folder, 0600 file) and removes it after', async () => {
    let seen: { dir: number; file: number } | undefined;
    const real = tarballReader.inspectTarball;
    jest.spyOn(tarballReader, 'inspectTarball').mockImplementation(async (file, limits) => {
      seen = { dir: fs.statSync(path.dirname(file)).mode & 0o777, file: fs.statSync(file).mode & 0o777 };
      expect(file).not.toBe(offered);
      return real(file, limits);
    });
    const staged = await source.stage(offered);
    await source.discard(staged);

    expect(seen).toEqual({ dir: 0o700, file: 0o600 });
    expect(fs.readdirSync(path.join(base, 'data', 'tmp'))).toEqual([]);
  });

  it('refuses a path that is not a regular file once opened (a FIFO never blocks staging)', async () => {
    const fifo = path.join(base, 'fifo.tgz');
    execFileSync('mkfifo', [fifo]);
    await expect(source.stage(fifo)).rejects.toThrow(/not a regular file|no package folder/);
  });
});
